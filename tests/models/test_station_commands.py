"""The station command catalogue and the bulk run: outcomes followed through lastCmdStatus,
bounded concurrency, refusals, a dropped POST never sent again on its own, cancel, retry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import QPersistentModelIndex

from lpwa_console.models.forms import form_fields
from lpwa_console.models.station_command_answers import result_words
from lpwa_console.models.station_command_catalogue import (
    COMMANDS,
    FAMILIES,
    StationRef,
    check_parameters,
    command_spec,
    confirmation_text,
    family_commands,
    request_body,
)
from lpwa_console.models.station_command_run import BulkCommandRun, State, seconds_in_words
from lpwa_console.models.tasks import TaskRunner

from .station_network import Station, StationNetwork

# Document 2 §4.3's nineteen commands, and the support password.
SECTION_4_3 = {
    "backup", "cancelRadioScan", "closeSsh", "downloadLrrVersion", "openSsh", "openTerminal",
    "reboot", "restart", "restore", "rfcDownlinkStop", "rfcStart", "rfcStop", "scanRadio",
    "updateAntennasGainAndLoss", "updateFineTimestampKeys", "updateLocation", "updateLog",
    "updateRfRegion", "upgrade",
}  # fmt: skip


def refs(count: int) -> list[StationRef]:
    return [StationRef(str(i + 1), f"0A1B2C{i:02X}", f"Tower {i + 1}") for i in range(count)]


def test_catalogue_covers_section_4_3_in_families() -> None:
    assert set(COMMANDS) == SECTION_4_3 | {"changeSupportPassword"}
    assert {spec.family for spec in COMMANDS.values()} == set(FAMILIES)
    disruptive = {name for name, spec in COMMANDS.items() if spec.disruptive}
    assert {"reboot", "restart", "restore", "upgrade", "updateRfRegion"} <= disruptive
    assert [s.name for s in family_commands("software")] == ["downloadLrrVersion", "upgrade"]
    with pytest.raises(KeyError):
        command_spec("selfDestruct")


def test_every_command_has_a_form_without_gaps() -> None:
    for spec in COMMANDS.values():
        if spec.name == "changeSupportPassword":
            continue  # a dialog of its own: two masked fields
        _fields, skipped = form_fields(spec.parameters)
        assert skipped == [], spec.name


def test_confirmation_names_the_stations() -> None:
    text = confirmation_text(command_spec("reboot"), refs(3))
    assert text == "Reboot 3 stations: Tower 1 (0A1B2C00), Tower 2 (0A1B2C01), Tower 3 (0A1B2C02)"
    many = confirmation_text(command_spec("upgrade"), refs(12))
    assert many.startswith("Upgrade the LRR software of 12 stations: Tower 1 (0A1B2C00)")
    assert many.endswith("and 4 more")
    assert confirmation_text(command_spec("reboot"), refs(1)).startswith("Reboot 1 station:")


def test_parameter_errors_name_their_field_in_words() -> None:
    location = command_spec("updateLocation")
    assert check_parameters(location, {"locationType": "1", "adminLat": 45.0}) == {
        "adminLon": "Longitude: needed for an administrative location"
    }
    assert request_body(location, {"locationType": "2"}).to_wire() == {"locationType": 2}
    scan = command_spec("scanRadio")
    errors = check_parameters(scan, {"frequency": {"start": 869, "stop": 863, "step": 200}})
    assert errors["frequency"].startswith("Frequencies to scan: ")
    password = command_spec("changeSupportPassword")
    assert check_parameters(password, {"password": "with space inside"}) == {
        "password": "New support password: printable ASCII characters without spaces"
    }
    # occContext is deprecated for commands: accepted and dropped
    assert request_body(scan, {"occContext": {"version": 3}}).to_wire() == {}


def test_result_and_duration_words() -> None:
    assert result_words("rfcStatus", {"rfcellState": 1}).startswith("Downlinks stopped")
    assert result_words("swVersion", {"version": {"version": "2.2.64"}}) == "Running LRR 2.2.64"
    keys = {"fpgaBoards": [{"index": 0, "key": "AB" * 16}]}
    assert "AB" not in result_words("fineTimestampKeysStatus", keys)
    assert seconds_in_words(4.2) == "4 s"
    assert seconds_in_words(125) == "2 min 5 s"
    assert seconds_in_words(3720) == "1 h 2 min"


def run_of(network: StationNetwork, count: int, command: str = "reboot", **kw: Any) -> Any:
    kw.setdefault("poll_s", 0.005)
    kw.setdefault("max_poll_s", 0.02)
    return BulkCommandRun(network, command, refs(count), {}, **kw)


def wait_done(qtbot: Any, run: BulkCommandRun) -> str:
    with qtbot.waitSignal(run.finished, timeout=10_000) as finished:
        pass
    return str(finished.args[0])


def test_bulk_reboot_follows_every_station_to_its_outcome(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    stations = {str(i): Station() for i in range(1, 31)}
    stations["7"].outcome = "ERR_EXEC"
    stations["9"].refuse = "The base station does not support this command"
    network = StationNetwork(stations)
    runner = TaskRunner()
    run = run_of(network, 30, concurrency=4, runner=runner)
    qtmodeltester.check(run.model)
    progress: list[tuple[int, int]] = []
    run.progress.connect(lambda done, total: progress.append((done, total)))
    run.start()
    assert [t.name for t in runner.running] == ["Reboot: 30 stations"]
    summary = wait_done(qtbot, run)
    assert summary == "Reboot: 28 done, 1 failed, 1 refused"
    assert [(f.name, f.message) for f in runner.failures] == [("Reboot: 30 stations", summary)]
    assert network.most_in_flight <= 4
    # The failure and the refusal are outcomes, not done: the progress stops at 28 of 30.
    assert progress[0] == (0, 30) and progress[-1] == (28, 30)
    results = run.model.results
    assert results[0].state is State.SUCCEEDED
    assert results[0].message.startswith("Rebooted. Up since")
    assert results[6].state is State.FAILED
    assert results[6].message == (
        "The command failed on the station: upgrade: package checksum mismatch"
    )
    # A 400 would be refused again: "Refused", and not offered to Retry failed.
    assert results[8].state is State.REFUSED and results[8].message.startswith("Refused: ")
    assert run.failed_rows() == [6]
    assert all(s.posts == 1 for s in stations.values())
    model = run.model
    assert model.data(model.index(6, 0)) == "Tower 7 (0A1B2C06)"
    assert model.data(model.index(6, 1)) == "Failed"
    assert model.data(model.index(0, 3)).endswith(" s")
    qtmodeltester.check(model)
    # Sorted by state, what needs attention comes first; the run still addresses its rows.
    kept = QPersistentModelIndex(model.index(0, 0))
    model.sort(model.STATE)
    assert [model.data(model.index(r, 0)) for r in range(2)] == [
        "Tower 7 (0A1B2C06)",
        "Tower 9 (0A1B2C08)",
    ]
    assert kept.row() == 2 and model.data(kept) == "Tower 1 (0A1B2C00)"
    qtmodeltester.check(model)

    # Retry failed: only the failure is sent again (the refusal would repeat); 7 succeeds.
    stations["7"].outcome = "COMPLETED"
    assert run.retry_failed() == 1
    summary = wait_done(qtbot, run)
    assert summary == "Reboot: 29 done, 1 refused"
    assert stations["7"].posts == 2 and stations["9"].posts == 1 and stations["1"].posts == 1
    assert model.data(model.index(0, 1)) == "Done"  # Tower 7, still shown first, updated
    assert model.data(model.index(1, 1)) == "Refused"


def test_dropped_post_is_not_sent_again_silently(qtbot: Any, qloop: Any) -> None:
    stations = {"1": Station(drop="after"), "2": Station(drop="before-apply"), "3": Station()}
    network = StationNetwork(stations)
    run = run_of(network, 3)
    run.start()
    summary = wait_done(qtbot, run)
    results = run.model.results
    # Applied though the answer was lost: lastCmdStatus shows it, so it is followed.
    assert results[0].state is State.SUCCEEDED
    # Lost before the station had it: said, and not sent again.
    assert results[1].state is State.UNKNOWN
    assert "not known whether the station received it" in results[1].message
    assert stations["2"].posts == 1
    assert summary == "Reboot: 2 done, 1 not known whether received"
    assert run.retry_failed() == 0  # unknown ones are not "failed"
    assert run.retry_failed(include_unknown=True) == 1  # only when asked
    wait_done(qtbot, run)
    assert results[1].state is State.SUCCEEDED and stations["2"].posts == 2


def test_timeout_and_cancel(qtbot: Any, qloop: Any) -> None:
    stations = {str(i): Station(never_ends=True) for i in range(1, 4)}
    network = StationNetwork(stations)
    run = run_of(network, 3, timeout_s=0.15)
    run.start()
    wait_done(qtbot, run)
    assert {r.state for r in run.model.results} == {State.TIMED_OUT}
    assert run.model.results[0].message.startswith("No outcome after 0 s")

    many = {str(i): Station(never_ends=True) for i in range(1, 41)}
    run = run_of(StationNetwork(many), 40, concurrency=2, timeout_s=60)
    run.start()
    qtbot.waitUntil(lambda: run.model.results[0].state is State.QUEUED, timeout=5000)
    run.cancel()  # some are sent and followed, the last ones not sent yet
    summary = wait_done(qtbot, run)
    states = {r.state for r in run.model.results}
    assert states <= {State.LEFT, State.CANCELLED} and State.CANCELLED in states
    assert "not sent" in summary
    # a command that was sent stays sent: nothing but the unsent ones is "not sent"
    assert sum(s.posts for s in many.values()) == run.counts()[State.LEFT]


def test_stopped_midway_the_unsent_ones_say_so(qtbot: Any, qloop: Any) -> None:
    """The run's task cancelled (the console closing) while stations still wait their turn:
    those sent are no longer followed, the others were never sent, and say so."""
    many = {str(i): Station(never_ends=True) for i in range(1, 41)}
    run = run_of(StationNetwork(many), 40, concurrency=2, timeout_s=60)
    run.start()
    qtbot.waitUntil(lambda: run.model.results[1].state is State.QUEUED, timeout=5000)
    assert run._task is not None
    run._task.cancel()
    wait_done(qtbot, run)
    counts = run.counts()
    assert set(counts) <= {State.LEFT, State.CANCELLED, State.UNKNOWN}
    assert counts.get(State.CANCELLED, 0) >= 30
    # Sent and followed, or stopped while its POST was out: never "not sent" once sent.
    sent = sum(s.posts for s in many.values())
    assert (
        counts.get(State.LEFT, 0)
        <= sent
        <= counts.get(State.LEFT, 0) + counts.get(State.UNKNOWN, 0)
    )
    unsent = [r for r in run.model.results if r.state is State.CANCELLED]
    assert all("before sending" in r.message for r in unsent)


def test_the_real_client_after_a_dropped_post(qtbot: Any, qloop: Any) -> None:
    """Fault injection (respx) on the real client: the connection drops after the reboot was
    sent. The run reads lastCmdStatus once: station 1 has it (followed to its outcome),
    station 2 does not (said, and never sent again on its own)."""
    import httpx
    import respx

    from lpwa_console.api import LpwaClient

    base = "https://platform.test/rest"
    bss = f"{base}/partners/mine/bss"
    before = {"now": 1, "lastCmdID": 7, "lastCmdType": "RESTART", "lastCmdRequestDate": 100,
              "lastCmdCompletionStatus": "COMPLETED"}  # fmt: skip
    arrived = {**before, "lastCmdID": 8, "lastCmdType": "REBOOT", "lastCmdRequestDate": 200}
    with respx.mock(assert_all_called=False) as mock:
        posts = [
            mock.post(f"{bss}/{uid}/admins/reboot").mock(side_effect=httpx.ReadError("reset"))
            for uid in ("1", "2")
        ]
        mock.get(f"{bss}/1/admins/lastCmdStatus").mock(
            side_effect=[httpx.Response(200, json=before)]
            + [httpx.Response(200, json=arrived)] * 20
        )
        mock.get(f"{bss}/2/admins/lastCmdStatus").mock(
            return_value=httpx.Response(200, json=before)
        )
        mock.get(f"{bss}/1/admins/systemUptime").mock(
            return_value=httpx.Response(200, json={"lastsystemReboot": 1_700_000_000_000})
        )
        client = LpwaClient(base, None, max_retries=3, backoff_s=0.001)
        run = BulkCommandRun(client.station_admin, "reboot", refs(2), poll_s=0.005)
        run.start()
        summary = wait_done(qtbot, run)
        assert [p.call_count for p in posts] == [1, 1]  # never sent again on its own
        closing = asyncio.ensure_future(client.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)
    first, second = run.model.results
    assert first.state is State.SUCCEEDED and first.message.startswith("Rebooted. Up since")
    assert second.state is State.UNKNOWN
    assert summary == "Reboot: 1 done, 1 not known whether received"


def test_a_run_says_when_a_station_may_have_moved(qtbot: Any, qloop: Any) -> None:
    """Running, then its outcome: the stations pane reads the station again each time."""
    network = StationNetwork({"1": Station(), "2": Station()})
    run = run_of(network, 2)
    moved: list[str] = []
    run.station_moved.connect(moved.append)
    run.start()
    wait_done(qtbot, run)
    uids = [s.uid for s in run.stations]
    assert set(moved) == set(uids)
    assert all(moved.count(uid) <= 2 for uid in uids)  # RUNNING, then done: no more
