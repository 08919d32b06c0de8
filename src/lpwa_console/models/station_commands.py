"""Base station admin commands (Document 2 §4.3): the catalogue, and a run that sends one
command to N stations and follows each to its outcome.

The catalogue says, for each command, its family (one dialog per family), its parameters
(a request model of schema/station_commands.py, so a form checks the schema's rules), whether
it disrupts the station's service (a confirmation names the stations), which `lastCmdType`
values report it and which status endpoint describes its result.

`BulkCommandRun` sends with bounded concurrency on the running asyncio (qasync) loop, so the
UI thread only ever handles small signals. It follows each station through
`lastCmdStatus` (PENDING, PROCESSING, then COMPLETED or an ERR_ status) until an outcome or a
timeout, or through the command's status endpoint for the commands `lastCmdStatus` does not
report. A POST whose connection dropped after sending is never sent again on its own: the
station's last command says whether it arrived; when it cannot tell, the row says it is not
known and only an explicit "send again" sends it.

The catalogue is station_command_catalogue.py's, the answers in words
station_command_answers.py's, the run station_command_run.py's; all are imported from here.
"""

from __future__ import annotations

from .station_command_answers import (
    COMPLETION_WORDS,
    CURRENT_STATUS,
    FAILED_COMPLETIONS,
    RF_CELL_WORDS,
    CurrentValues,
    result_words,
    software_types,
    value_of,
    values_from_status,
    versions_from_status,
)
from .station_command_catalogue import (
    COMMANDS,
    FAMILIES,
    SUPPORT_PASSWORD,
    CommandSpec,
    Follow,
    StationCommandClient,
    StationRef,
    admin_of,
    check_parameters,
    command_spec,
    confirmation_text,
    count_words,
    family_commands,
    request_body,
    stations_in_words,
)
from .station_command_run import (
    ATTENTION,
    STATE_ROLE,
    BulkCommandRun,
    State,
    StationResult,
    StationResultsModel,
    seconds_in_words,
)

__all__ = [
    "ATTENTION",
    "COMMANDS",
    "COMPLETION_WORDS",
    "CURRENT_STATUS",
    "FAILED_COMPLETIONS",
    "FAMILIES",
    "RF_CELL_WORDS",
    "STATE_ROLE",
    "SUPPORT_PASSWORD",
    "BulkCommandRun",
    "CommandSpec",
    "CurrentValues",
    "Follow",
    "State",
    "StationCommandClient",
    "StationRef",
    "StationResult",
    "StationResultsModel",
    "admin_of",
    "check_parameters",
    "command_spec",
    "confirmation_text",
    "count_words",
    "family_commands",
    "request_body",
    "result_words",
    "seconds_in_words",
    "software_types",
    "stations_in_words",
    "value_of",
    "values_from_status",
    "versions_from_status",
]
