"""Widgets: main window, panes, dialogs. They receive view-models and never touch HTTP."""
