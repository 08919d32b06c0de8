"""Screenshots of the forms on a 1280x720 screen: the New and Edit device dialogs, a
multicast group and an application server form, a new base station, and the detail of an application server, on
a fresh sandbox. Each dialog is fitted to 1280x720 as on such a screen and drawn at its place
on a 1280x720 canvas; the dialog alone is saved too. Prints the paths and each dialog's size.

    ./dev bench form_screenshots --out DIR
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from _measure import run_on_qt_loop, signed_in_client
from _sandbox import Server


async def shoot(server: Server, out: Path) -> None:
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtGui import QColor, QPainter, QPixmap
    from PySide6.QtWidgets import QApplication, QWidget

    from lpwa_console.models.devices import DevicesViewModel
    from lpwa_console.models.resources import (
        ResourceViewModel,
        app_servers_kind,
        multicast_kind,
    )
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.dialogs.device_form import DeviceFormDialog
    from lpwa_console.ui.dialogs.resource_form import ResourceFormDialog
    from lpwa_console.ui.panes.resources import detail_html
    from lpwa_console.ui.theme import apply_theme

    app = QApplication.instance()
    apply_theme(app, "light")  # type: ignore[arg-type]
    screen = QRect(0, 0, 1280, 720)
    client = await signed_in_client(server)
    runner = TaskRunner()
    devices = DevicesViewModel(runner, client)

    async def settle(condition: Any = lambda: True, seconds: float = 10.0) -> None:
        for _ in range(int(seconds * 20)):
            if condition() and not runner.busy:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)

    def save(widget: QWidget, name: str) -> None:
        widget.fit(screen)  # type: ignore[attr-defined]
        QApplication.processEvents()
        alone = widget.grab()
        canvas = QPixmap(screen.size())
        canvas.fill(QColor("#5b6770"))
        painter = QPainter(canvas)
        x = (screen.width() - alone.width()) // 2
        y = max(0, (screen.height() - alone.height()) // 2)
        painter.drawPixmap(x, y, alone)
        painter.end()
        for path, image in ((out / f"{name}.png", canvas), (out / f"{name}-dialog.png", alone)):
            image.save(str(path))
            print(path)
        print(f"  {name}: {widget.width()} x {widget.height()} px on 1280 x 720")

    await settle(lambda: devices.first_page_ms is not None)
    new = DeviceFormDialog(devices)
    new.show()
    await settle(lambda: new.model_choices.rowCount() > 0)
    new.activation.setCurrentIndex(new.activation.findData("ABP"))  # DevAddr is asked
    new.inputs["EUI"].setText("70B3D5E75E00FFFF")
    new.inputs["nwAddress"].setText("12")  # a wrong DevAddr: the message in words
    new._edited("nwAddress")
    save(new, "device-new")
    new.pickers["model"].showPopup()
    QApplication.processEvents()
    await asyncio.sleep(0.2)
    popup = new.pickers["model"].view().window()
    shot = QPixmap(screen.size())
    shot.fill(QColor("#5b6770"))
    painter = QPainter(shot)
    painter.drawPixmap(0, 0, new.grab())
    picker = new.pickers["model"]
    below = picker.mapTo(new, QPoint(0, picker.height()))
    painter.drawPixmap(below.x(), below.y(), popup.grab())
    painter.end()
    shot.save(str(out / "device-new-model-list.png"))
    print(out / "device-new-model-list.png")
    new.pickers["model"].hidePopup()
    new.reject()

    page = await client.devices.list(1, 10)
    device = await client.devices.get(page.briefs[0].path_ref)
    edit = DeviceFormDialog(devices, device)
    edit.show()
    await settle(lambda: edit.model_choices.rowCount() > 0)
    save(edit, "device-edit")
    edit.reject()

    for kind, name in ((multicast_kind(), "multicast-new"), (app_servers_kind(), "app-server-new")):
        vm = ResourceViewModel(runner, kind, client)
        dialog = ResourceFormDialog(vm)
        dialog.show()
        await settle()
        save(dialog, name)
        dialog.reject()

    servers = ResourceViewModel(runner, app_servers_kind(), client)
    brief = (await client.app_servers.list(1, 10)).briefs[0]
    item = await client.app_servers.get(brief.path_ref)
    edit_server = ResourceFormDialog(servers, item)
    edit_server.show()
    await settle()
    save(edit_server, "app-server-edit")
    edit_server.reject()

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    label.setWordWrap(True)
    label.setText(detail_html(servers, item, {}))
    label.setMargin(12)
    label.resize(460, label.heightForWidth(460))
    label.grab().save(str(out / "app-server-detail.png"))
    print(out / "app-server-detail.png")
    groups = ResourceViewModel(runner, multicast_kind(), client)
    group_brief = (await client.multicast_groups.list(1, 10)).briefs[0]
    group = await client.multicast_groups.get(group_brief.path_ref)
    label.setText(detail_html(groups, group, {}))
    label.resize(460, label.heightForWidth(460))
    label.grab().save(str(out / "multicast-detail.png"))
    print(out / "multicast-detail.png")

    # A new base station: the LRR ID checked as typed (a reserved one), the model picked.
    from lpwa_console.models.partners import PartnerViewModel
    from lpwa_console.models.references import ID_ROLE
    from lpwa_console.models.stations import StationsViewModel
    from lpwa_console.ui.panes.stations import StationCreateDialog

    stations = StationsViewModel(runner, client)
    partner = PartnerViewModel(runner, client)
    await settle(lambda: partner.partner is not None and stations.first_page_ms is not None)
    host = QWidget()
    station = StationCreateDialog(stations, host, note=partner.create_note())
    station.show()
    picker = station.editors["model"].fields["ID"].input  # type: ignore[attr-defined]
    await settle(lambda: picker.model().rowCount() > 0)
    station.inputs["name"].setText("Depot roof, north")  # type: ignore[union-attr]
    station.inputs["lrrID"].setText("FFFE0A01")  # type: ignore[union-attr]
    model = picker.model()
    picker.setCurrentIndex(
        next(
            r for r in range(model.rowCount()) if model.index(r, 0).data(ID_ROLE).startswith("KER")
        )
    )
    save(station, "station-create-form")
    station.reject()
    runner.cancel_all()
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lpwa-forms-") as tmp:
        server = Server(Path(tmp) / "sandbox.db", "--seed", "200")
        try:
            run_on_qt_loop(lambda: shoot(server, args.out))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
