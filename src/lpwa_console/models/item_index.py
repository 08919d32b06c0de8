"""`Index`: what Qt passes an item model's methods (a QModelIndex, or a persistent one held
by a view's selection); one alias for every item model of the console."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex

Index = QModelIndex | QPersistentModelIndex
