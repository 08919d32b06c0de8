"""Where the demo network stands: its cities (name, country, lat, lon, districts) and how
many of the demo's devices and stations each gets (weights). Devices (demo.py) and stations
(demo_stations.py) share them, so both stand in the same places and domains."""

from __future__ import annotations

CITIES = [
    ("Paris", "France", 48.8566, 2.3522, ["La Defense", "Bercy", "Montmartre", "Bastille"]),
    ("Lyon", "France", 45.7640, 4.8357, ["Part-Dieu", "Confluence", "Croix-Rousse"]),
    ("Toulouse", "France", 43.6047, 1.4442, ["Capitole", "Blagnac", "Rangueil"]),
    ("Berlin", "Germany", 52.5200, 13.4050, ["Mitte", "Kreuzberg", "Spandau"]),
    ("Madrid", "Spain", 40.4168, -3.7038, ["Centro", "Chamartin", "Retiro"]),
    ("Amsterdam", "Netherlands", 52.3676, 4.9041, ["Zuid", "Noord", "Westpoort"]),
]
CITY_WEIGHTS = [30, 20, 12, 16, 12, 10]
