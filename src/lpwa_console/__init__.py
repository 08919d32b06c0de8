"""LPWA Console: a desktop management console for LoRaWAN and cellular IoT networks."""

__version__ = "0.1.0"
