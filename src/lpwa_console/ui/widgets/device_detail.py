"""The selected device: identity, tags, domains, location, last uplink, alarm counters.
Keys are never shown."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from ...models.devices import CONNECTIVITY_LABELS, HEALTH_LABELS, format_time
from ...schema.common import Severity
from ...schema.devices import Device
from ..theme import severity_color


def _row(label: str, value: object) -> str:
    if value is None or value == "":
        return ""
    return (
        f"<tr><td style='padding:2px 12px 2px 0;opacity:.7'>{escape(label)}</td>"
        f"<td style='padding:2px 0'>{escape(str(value))}</td></tr>"
    )


def _section(title: str, rows: list[str]) -> str:
    body = "".join(r for r in rows if r)
    if not body:
        return ""
    return f"<h4 style='margin:10px 0 4px 0'>{escape(title)}</h4><table>{body}</table>"


def device_html(device: Device) -> str:
    model = device.model.commercialName or device.model.ID if device.model else None
    identity = [
        _row("DevEUI" if device.connectivity == "LORAWAN" else "IMEI", device.EUI),
        _row("Connectivity", CONNECTIVITY_LABELS[device.connectivity]),
        _row("Activation", device.activation),
        _row("Model", model),
        _row("Health", HEALTH_LABELS.get(device.healthState, device.healthState)),
        _row("DevAddr", device.nwAddress),
        _row("JoinEUI", device.appEUI),
        _row("AS transport key", device.asTransportKey.name if device.asTransportKey else None),
        _row("IMSI", device.imsi),
        _row("ICCID", device.iccid),
        _row("Last IMEI", device.lastIMEI),
        _row("Created", format_time(device.creationDate)),
    ]
    tags = ", ".join(t.name for t in device.tags) or "none"
    domains = ", ".join(f"{d.group.name}: {d.name}" for d in device.domains) or "none"
    servers = ", ".join(s.name or s.ID for s in device.appServers) or "none"
    lat = device.lat if device.lat is not None else device.adminLat
    lon = device.lon if device.lon is not None else device.adminLon
    location = f"{lat:.5f}, {lon:.5f}" if lat is not None and lon is not None else "unknown"
    radio = [
        _row("Last uplink", format_time(device.lastUpTimestamp) or "never"),
        _row("Last downlink", format_time(device.lastDwTimestamp)),
        _row("SF", device.lastSF),
        _row("RSSI", f"{device.lastRSSI:.1f} dBm" if device.lastRSSI is not None else None),
        _row("SNR (last / avg)", _snr(device)),
        _row("Battery", f"{device.lastBatLevel}%" if device.lastBatLevel is not None else None),
    ]
    alarms = []
    for level in range(6, 0, -1):
        count = getattr(device, f"alarm{level}", 0)
        if count:
            color = severity_color(level).name()
            label = Severity(level).label
            alarms.append(
                f"<tr><td style='padding:2px 12px 2px 0;color:{color};font-weight:600'>"
                f"● {label}</td><td>{count}</td></tr>"
            )
    alarm_html = (
        f"<h4 style='margin:10px 0 4px 0'>Alarms</h4><table>{''.join(alarms)}</table>"
        if alarms
        else "<h4 style='margin:10px 0 4px 0'>Alarms</h4><p>No active alarm</p>"
    )
    return (
        f"<h3 style='margin:0'>{escape(device.name)}</h3>"
        + _section("Identity", identity)
        + _section(
            "Organisation",
            [_row("Tags", tags), _row("Domains", domains), _row("Application servers", servers)],
        )
        + _section(
            "Location", [_row("Position", location), _row("Notes", device.customerAdminData)]
        )
        + _section("Radio", radio)
        + alarm_html
    )


def _snr(device: Device) -> str | None:
    if device.lastSNR is None and device.avgSNR is None:
        return None
    last = f"{device.lastSNR:.1f}" if device.lastSNR is not None else "-"
    avg = f"{device.avgSNR:.1f}" if device.avgSNR is not None else "-"
    return f"{last} / {avg} dB"


class DeviceDetail(QScrollArea):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setMinimumWidth(260)
        self.label = QLabel()
        self.label.setObjectName("deviceDetail")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setMargin(10)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        self.setWidget(inner)
        self.show_device(None)

    def show_device(self, device: Device | None) -> None:
        if device is None:
            self.label.setText("<p style='opacity:.6'>Select a device to see its details.</p>")
        else:
            self.label.setText(device_html(device))

    def show_loading(self) -> None:
        self.label.setText("<p style='opacity:.6'>Loading…</p>")
