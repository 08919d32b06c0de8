"""The station command dialogs: a family's commands and their parameter forms checked while
typing, the confirmation naming the stations, the progress line and the per-station table
with Retry failed, rights, and the support password (masked, twice, confirmed, not kept)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QTableView,
)

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.rights import AccountRights, Grants
from lpwa_console.models.station_command_catalogue import StationRef
from lpwa_console.models.station_command_run import State
from lpwa_console.models.station_detail import StationDetailViewModel
from lpwa_console.models.stations import StationsViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.dialogs.station_commands import (
    StationCommandDialog,
    open_station_command,
)
from lpwa_console.ui.dialogs.support_password import SupportPasswordDialog
from lpwa_console.ui.panes.stations import StationsPane
from tests.conftest import SandboxProcess
from tests.helpers import run, shot

from ..models.station_network import Station, StationNetwork


@dataclass
class Client:
    station_admin: StationNetwork


def refs(count: int, software: str | None = "LRR_LINUX") -> list[StationRef]:
    return [
        StationRef(str(i + 1), f"0A1B2C{i:02X}", f"Tower {i + 1}", software) for i in range(count)
    ]


def network(count: int, **faults: Station) -> StationNetwork:
    stations = {str(i + 1): Station() for i in range(count)}
    stations.update(faults)
    return StationNetwork(stations, steps=1)


def fast(dialog: Any) -> None:
    """Status reads every few milliseconds instead of every second."""
    original = dialog.start

    def start() -> None:
        original()
        run = dialog.run
        run.poll_s, run.max_poll_s = 0.005, 0.02

    dialog.start = start


def click(qtbot: Any, dialog: Any, name: str) -> None:
    button = dialog.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_bulk_reboot_confirms_then_shows_each_outcome_and_retries(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    net = network(5, **{"4": Station(outcome="ERR_NOSTART")})
    runner = TaskRunner()
    dialog = open_station_command(None, Client(net), refs(5), "reboot", runner=runner)
    qtbot.addWidget(dialog)
    assert isinstance(dialog, StationCommandDialog)
    fast(dialog)
    assert dialog.windowTitle() == "Restart, reboot and backup: 5 stations"
    picker = dialog.findChild(QComboBox, "commandPicker")
    assert [picker.itemText(i) for i in range(picker.count())] == [
        "Restart the LRR software",
        "Reboot",
        "Back up the configuration",
        "Restore the backup",
    ]
    assert dialog.findChild(QLabel, "noParameters") is not None
    assert dialog.findChild(QPushButton, "sendCommand").text() == "Reboot…"
    click(qtbot, dialog, "sendCommand")
    confirm = dialog.findChild(QLabel, "confirmText").text()
    assert confirm.startswith("Reboot 5 stations: Tower 1 (0A1B2C00), Tower 2 (0A1B2C01)")
    assert dialog.findChild(QPushButton, "confirmCommand").text() == "Reboot 5 stations"
    assert net.posts == []  # nothing sent before the confirmation
    assert not dialog.findChild(QListWidget, "confirmStations").isVisibleTo(dialog)
    click(qtbot, dialog, "confirmCommand")
    run = dialog.run
    qtmodeltester.check(run.model)
    qtbot.waitUntil(lambda: not run.running, timeout=10_000)
    assert len(net.posts) == 5
    table = dialog.findChild(QTableView, "stationResults")
    assert table.model().data(table.model().index(0, 0)) == "Tower 1 (0A1B2C00)"  # as given
    table.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # a click on State
    assert table.model().data(table.model().index(0, 1)) == "Failed"
    summary = dialog.findChild(QLabel, "runSummary").text()
    assert summary == "Reboot: 4 done, 1 failed"
    bar = dialog.findChild(QProgressBar, "runProgress")
    qtbot.waitUntil(lambda: bar.value() == 4)  # the failure is not done
    assert bar.text() == "4 of 5 stations done"
    assert run.model.results[3].message == "The station did not start the command"
    qtmodeltester.check(run.model)
    shot(dialog, "station_reboot_results")
    retry = dialog.findChild(QPushButton, "retryFailed")
    assert retry.isVisibleTo(dialog) and retry.text() == "Retry failed (1)"
    net.stations["4"].outcome = "COMPLETED"
    click(qtbot, dialog, "retryFailed")
    qtbot.waitUntil(lambda: run.summary() == "Reboot: 5 done", timeout=10_000)
    assert len(net.posts) == 6


def test_command_picker_form_rules_while_typing_and_one_station_line(
    qtbot: Any, qloop: Any
) -> None:
    net = network(1)
    dialog = open_station_command(None, Client(net), refs(1))
    qtbot.addWidget(dialog)
    fast(dialog)
    picker = dialog.findChild(QComboBox, "commandPicker")
    titles = [picker.itemText(i) for i in range(picker.count())]
    assert titles[0] == "Restart, reboot and backup" and "Radio" in titles
    assert "Change the support password" not in [t.strip() for t in titles]
    picker.setCurrentIndex(picker.findData("updateLocation"))
    send = dialog.findChild(QPushButton, "sendCommand")
    assert not send.isEnabled()  # the location source is required
    source = dialog.findChild(QComboBox, "locationType")
    assert source.itemText(1) == "Administrative (typed here)"
    source.setCurrentIndex(1)
    error = dialog.findChild(QLabel, "adminLatError").text()  # next to the field it names
    assert error == "Latitude: needed for an administrative location"
    assert not send.isEnabled()
    qtbot.keyClicks(dialog.findChild(QLineEdit, "adminLat"), "95")
    assert dialog.findChild(QLabel, "adminLatError").text() == "Latitude: at most 90"
    dialog.findChild(QLineEdit, "adminLat").setText("45.76")
    qtbot.keyClicks(dialog.findChild(QLineEdit, "adminLon"), "4.83")
    assert send.isEnabled() and send.text() == "Update the location"
    click(qtbot, dialog, "sendCommand")  # not disruptive: no confirmation
    line = dialog.findChild(QLabel, "runLine")
    qtbot.waitUntil(lambda: line.text().startswith("Done"), timeout=10_000)
    assert line.text() == "Done: Location updated"
    assert net.posts == [
        ("1", "updateLocation", {"locationType": 1, "adminLat": 45.76, "adminLon": 4.83})
    ]
    shot(dialog, "station_location_done")


def test_a_dropped_post_is_said_and_sent_again_only_on_purpose(qtbot: Any, qloop: Any) -> None:
    net = network(1, **{"1": Station(drop="before-apply")})
    dialog = open_station_command(None, Client(net), refs(1), "rfcStart")
    qtbot.addWidget(dialog)
    fast(dialog)
    click(qtbot, dialog, "sendCommand")
    line = dialog.findChild(QLabel, "runLine")
    qtbot.waitUntil(lambda: not dialog.run.running, timeout=10_000)
    assert line.text().startswith("Not known if received: The connection dropped")
    assert not dialog.findChild(QPushButton, "retryFailed").isVisibleTo(dialog)
    again = dialog.findChild(QPushButton, "sendAgainUnknown")
    assert again.isVisibleTo(dialog)
    click(qtbot, dialog, "sendAgainUnknown")  # the first click only explains
    assert net.stations["1"].posts == 1
    assert "may run it twice" in dialog.findChild(QLabel, "runSummary").text()
    click(qtbot, dialog, "sendAgainUnknown")
    qtbot.waitUntil(lambda: line.text().startswith("Done"), timeout=10_000)
    assert line.text() == "Done: RF cell started. RF cell started"
    assert net.stations["1"].posts == 2


def test_rights_disable_sending_with_the_reason(qtbot: Any, qloop: Any) -> None:
    rights = AccountRights(TaskRunner())
    rights.grants = Grants(permissions=frozenset({"x"}))
    dialog = open_station_command(None, Client(network(2)), refs(2), "upgrade", rights=rights)
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.findChild(QLineEdit, "version"), "2.2.64")
    send = dialog.findChild(QPushButton, "sendCommand")
    assert not send.isEnabled()
    assert send.toolTip() == (
        "Your account may not reboot, restart, restore or upgrade base stations: it lacks the"
        " network partner's write permission ('a')"
    )
    rights.grants = Grants(permissions=frozenset({"x", "a"}))
    rights.changed.emit()
    assert send.isEnabled()


def test_support_password_masked_twice_confirmed_and_not_kept(qtbot: Any, qloop: Any) -> None:
    net = network(3)
    stations = [*refs(2), StationRef("3", "0A1B2C02", "Basic", "BASIC_STATION_LINUX")]
    dialog = open_station_command(None, Client(net), stations, "changeSupportPassword")
    qtbot.addWidget(dialog)
    assert isinstance(dialog, SupportPasswordDialog)
    fast(dialog)
    excluded = dialog.findChild(QLabel, "excludedStations").text()
    assert excluded.startswith("Left out: Basic (0A1B2C02) runs BASIC_STATION_LINUX")
    password = dialog.findChild(QLineEdit, "password")
    again = dialog.findChild(QLineEdit, "passwordAgain")
    assert password.echoMode() == QLineEdit.EchoMode.Password
    assert again.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(password, "short")
    error = dialog.findChild(QLabel, "passwordError")
    assert error.text() == "New support password: 8 to 64 characters"
    qtbot.keyClicks(password, "-but-Long1")
    qtbot.keyClicks(again, "short-but-long1")
    assert error.text() == "The two passwords differ: type the same one twice"
    assert not dialog.findChild(QPushButton, "sendCommand").isEnabled()
    again.clear()
    qtbot.keyClicks(again, "short-but-Long1")
    assert error.text() == ""
    click(qtbot, dialog, "sendCommand")
    assert "Change the support password on 2 stations: Tower 1" in (
        dialog.findChild(QLabel, "confirmText").text()
    )
    click(qtbot, dialog, "confirmCommand")
    assert password.text() == "" and again.text() == ""  # cleared once sent
    run = dialog.run
    qtbot.waitUntil(lambda: not run.running, timeout=10_000)
    assert sorted(p[:2] for p in net.posts) == [
        ("1", "changeSupportPassword"),
        ("2", "changeSupportPassword"),
    ]
    assert run.params is None  # forgotten once the run ended
    assert net.posts[0][2] == {"password": "short-but-Long1"}  # what went on the wire
    assert {r.state for r in run.model.results} == {State.SUCCEEDED}
    assert not dialog.findChild(QPushButton, "retryFailed").isVisibleTo(dialog)


def test_support_password_disabled_for_other_software(qtbot: Any, qloop: Any) -> None:
    stations = [StationRef("3", "0A1B2C02", "Basic", "BASIC_STATION_LINUX")]
    dialog = open_station_command(None, Client(network(3)), stations, "changeSupportPassword")
    qtbot.addWidget(dialog)
    assert not dialog.findChild(QLineEdit, "password").isEnabled()
    assert not dialog.findChild(QPushButton, "sendCommand").isEnabled()
    reason = dialog.findChild(QLabel, "passwordError").text()
    assert reason == (
        "Basic (0A1B2C02) runs BASIC_STATION_LINUX: the support password is for stations "
        "running the LRR software (LRR_LINUX)"
    )


def test_one_stations_form_starts_from_what_it_has_now(qtbot: Any, qloop: Any) -> None:
    dialog = open_station_command(None, Client(network(1)), refs(1), "updateLog")
    qtbot.addWidget(dialog)
    level = lambda: dialog.findChild(QComboBox, "traceLevel")  # noqa: E731 (rebuilt)
    qtbot.waitUntil(lambda: level().currentText() == "Level 2", timeout=5000)
    picker = dialog.findChild(QComboBox, "commandPicker")
    picker.setCurrentIndex(picker.findData("updateAntennasGainAndLoss"))
    qtbot.waitUntil(lambda: "gain" in str(dialog.form.data()), timeout=5000)
    assert dialog.form.data() == {"chains": [{"index": 0, "gain": 3.0, "cableLoss": 0.5}]}

    software = open_station_command(None, Client(network(1)), refs(1), "upgrade")
    qtbot.addWidget(software)
    versions = software.findChild(QLabel, "currentValues")
    qtbot.waitUntil(lambda: versions.text().startswith("Versions this"), timeout=5000)
    assert versions.text() == "Versions this station may take: 2.10.1, 2.4.18"
    line = software.findChild(QLineEdit, "version")
    assert line.placeholderText() == "2.10.1" and line.completer() is not None


def test_many_stations_listed_and_other_software_warned(qtbot: Any, qloop: Any) -> None:
    stations = [*refs(11), StationRef("12", "0A1B2C0B", "Basic", "BASIC_STATION_LINUX")]
    dialog = open_station_command(None, Client(network(12)), stations, "restart")
    qtbot.addWidget(dialog)
    warning = dialog.findChild(QLabel, "disruptiveWarning").text()
    assert warning.endswith(
        "Only for stations running the LRR software: Basic (0A1B2C0B) runs other software, so"
        " the platform will refuse it there."
    )
    click(qtbot, dialog, "sendCommand")
    text = dialog.findChild(QLabel, "confirmText").text()
    assert text.startswith("Restart the LRR software of 12 stations: Tower 1 (0A1B2C00)")
    assert text.endswith("and 4 more")
    listed = dialog.findChild(QListWidget, "confirmStations")
    assert listed.isVisibleTo(dialog) and listed.count() == 12
    assert listed.item(11).text() == "Basic (0A1B2C0B)"
    click(qtbot, dialog, "backToForm")
    assert dialog.stack.currentIndex() == 0


class Stations:
    """`client.stations.get`: what a station runs, as the platform answers it."""

    async def get(self, station: str) -> Any:
        software = "BASIC_STATION_LINUX" if station == "2" else "LRR_LINUX"
        return {"lrrID": station, "model": {"ID": "M", "softwareType": software}}


@dataclass
class ClientWithStations:
    station_admin: StationNetwork
    stations: Stations


def test_support_password_reads_what_unknown_stations_run(qtbot: Any, qloop: Any) -> None:
    client = ClientWithStations(network(2), Stations())
    dialog = open_station_command(None, client, refs(2, software=None), "changeSupportPassword")
    qtbot.addWidget(dialog)
    excluded = dialog.findChild(QLabel, "excludedStations")
    qtbot.waitUntil(lambda: excluded.text().startswith("Left out: Tower 2"), timeout=5000)
    assert dialog.findChild(QLabel, "stationsLabel").text() == "Stations: Tower 1 (0A1B2C00)"


# --- against a real sandbox whose simulator runs the command queue ----------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    """A sandbox of its own with the living network running 30 times faster (a reboot's
    two minutes take four seconds)."""
    server = SandboxProcess(
        tmp_path_factory.mktemp("commands") / "sandbox.db", "--simulate", "--speed", "30"
    )
    yield server
    server.stop()


@pytest.fixture
def live_client(live: SandboxProcess, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    account = live.account("subscriber")
    client = LpwaClient(
        live.base_url,
        Credentials(live.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    closing = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(closing.done, timeout=5000)


async def connected_lrr(client: LpwaClient, count: int) -> list[StationRef]:
    found = []
    async for brief in client.stations.iterate(page_size=200):
        software = brief.model.softwareType if brief.model else None
        if software == "LRR_LINUX" and brief.cnxState == "CNX":
            found.append(StationRef(brief.path_ref, brief.lrrID, brief.name, software))
        if len(found) == count:
            break
    return found


def test_reboot_and_support_password_on_a_real_sandbox(
    qtbot: Any, qloop: Any, live_client: LpwaClient, qtmodeltester: Any
) -> None:
    stations = run(qtbot, connected_lrr(live_client, 3))
    assert len(stations) == 3, "the demo network has connected LRR stations"
    dialog = open_station_command(None, live_client, stations, "reboot")
    qtbot.addWidget(dialog)
    click(qtbot, dialog, "sendCommand")
    assert dialog.findChild(QLabel, "confirmText").text().startswith("Reboot 3 stations: ")
    click(qtbot, dialog, "confirmCommand")
    dialog.run.poll_s = 0.2
    qtmodeltester.check(dialog.run.model)
    qtbot.waitUntil(lambda: not dialog.run.running, timeout=60_000)
    results = dialog.run.model.results
    assert {r.state for r in results} == {State.SUCCEEDED}, [r.message for r in results]
    assert all(r.message.startswith("Rebooted. Up since") for r in results)
    assert dialog.findChild(QLabel, "runSummary").text() == "Reboot: 3 done"

    # the support password of the first one: masked, twice, confirmed, followed, not kept
    support = open_station_command(None, live_client, stations[:1], "changeSupportPassword")
    qtbot.addWidget(support)
    for name in ("password", "passwordAgain"):
        qtbot.keyClicks(support.findChild(QLineEdit, name), "Field-Engineer7")
    click(qtbot, support, "sendCommand")
    click(qtbot, support, "confirmCommand")
    support.run.poll_s = 0.2
    line = support.findChild(QLabel, "runLine")
    qtbot.waitUntil(lambda: not support.run.running, timeout=60_000)
    assert line.text() == "Done: Support password changed"
    assert support.run.params is None
    station = run(qtbot, live_client.stations.get(stations[0].uid))
    changed = (station.model_extra or {}).get("supportPassword") or {}
    assert changed.get("lastChanged"), "the station says when it was changed"
    assert "Field-Engineer7" not in station.model_dump_json()

    # The station's Commands tab keeps its history: the password change, then the reboot.
    runner = TaskRunner()
    vm = StationsViewModel(runner, page_size=50)
    detail = StationDetailViewModel(runner)
    pane = StationsPane(vm, detail_vm=detail, partner=PartnerViewModel(runner))
    qtbot.addWidget(pane)
    pane.resize(1280, 640)
    pane.show()
    detail.set_client(live_client)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10_000):
        vm.set_client(live_client)
    pane.open_item(stations[0].lrr_id, "commands")
    tab = pane.detail.commands_tab
    qtbot.waitUntil(lambda: tab.model.rowCount() >= 2 and not tab.model.loading, timeout=10_000)
    titles = [tab.model.index(r, 0).data() for r in range(2)]
    assert titles == ["Change the support password", "Reboot"], titles
    statuses = [tab.model.index(r, 1).data() for r in range(2)]
    assert all(statuses), statuses
