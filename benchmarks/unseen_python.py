"""Unseen probe session 5: a pandas/Airflow events pipeline that double-counts a day."""
# ruff: noqa: E501  (scripted transcripts: tool output and code kept as the tools print them)

from __future__ import annotations

from benchmarks.unseen_log import Log, UnseenSession

_TRANSFORM = '''"""Daily aggregates from the hourly event files."""

from pathlib import Path

import pandas as pd

from pipelines.events.schema import EVENT_DTYPES


def load_hourly(day: str, landing: Path) -> pd.DataFrame:
    frames = [
        pd.read_parquet(path).astype(EVENT_DTYPES)
        for path in sorted(landing.glob(f"events-{day}T*.parquet"))
    ]
    return pd.concat(frames, ignore_index=True)


def daily_active_users(events: pd.DataFrame) -> pd.DataFrame:
    events["date"] = pd.to_datetime(events["event_ts"], unit="ms").dt.date
    return events.groupby("date")["user_id"].nunique().rename("dau").reset_index()
'''

_SCHEMA = '''"""Column types of the event files."""

EVENT_DTYPES = {
    "event_id": "string",
    "user_id": "int64",
    "event_ts": "int64",
    "name": "category",
}
'''

_DAG = """from datetime import datetime

from airflow import DAG
from airflow.operators.python import PythonOperator

with DAG(
    "events_daily",
    schedule="30 4 * * *",
    start_date=datetime(2024, 1, 1),
    catchup=False,
) as dag:
    aggregate = PythonOperator(task_id="aggregate", python_callable=run_daily)
    publish = PythonOperator(task_id="publish", python_callable=publish_dau)
    aggregate >> publish
"""

_TEST = """from pipelines.events.transform import daily_active_users, load_hourly


def test_daily_counts(landing_fixture):
    events = load_hourly("2024-03-01", landing_fixture)
    assert len(events) == 1204
    assert daily_active_users(events)["dau"].iloc[0] == 311
"""


def build() -> UnseenSession:
    """The Python session: three segments, 26 probes."""
    s = Log("python")
    s.user(
        "Daily active users on the growth dashboard jumped 18% on 2024-03-03 and nobody "
        "believes it. The pipeline is pipelines/events (pandas, scheduled by Airflow). "
        "Start with transform.py please."
    )
    s.bash(
        "python -c 'import pandas, pyarrow; print(pandas.__version__, pyarrow.__version__)'",
        "2.2.1 15.0.2",
    )
    s.read("pipelines/events/transform.py", _TRANSFORM)
    s.bash(
        "python -m pipelines.events.inspect --date 2024-03-03",
        "landing files: 25\nrows: 9,812,455\nduplicate event_id: 412,903\nnull user_id: 0",
        0,
        text="Looking at the landing data for that day.",
    )
    s.probe("fact", "412,903")
    s.bash(
        "ls data/landing/ | grep 2024-03-03T2",
        "events-2024-03-03T20.parquet\nevents-2024-03-03T21.parquet\nevents-2024-03-03T22.parquet\n"
        "events-2024-03-03T23.parquet\nevents-2024-03-03T23.retry.parquet",
    )
    s.say(
        "The landing folder has hour 23 twice: the uploader retried and left "
        "events-2024-03-03T23.retry.parquet next to the original, and `load_hourly` globs "
        "`events-{day}T*.parquet`, so both copies are read and hour 23 counts double."
    )
    s.probe("fact", "load_hourly", "retry.parquet")
    s.say(
        "Fix options: (1) tighten the glob so `.retry` files are skipped, or (2) drop "
        "duplicates on event_id after the concat."
    )
    s.user(
        "Option 2. The uploader can retry any hour and may rename differently next time, "
        "a glob just moves the problem."
    )
    s.probe("decision", "event_id", "uploader")
    s.user(
        "When two rows share an event_id, keep the first one: the original upload is "
        "complete, a retry can be partial."
    )
    s.probe("decision", "keep the first", "partial")
    s.grep(
        "landing.glob\\(",
        [
            'pipelines/events/transform.py:13:        for path in sorted(landing.glob(f"events-{day}T*.parquet"))',
            'pipelines/sessions/transform.py:21:    paths = sorted(landing.glob(f"sessions-{day}T*.parquet"))',
        ],
        text="Does anything else glob the landing folder the same way?",
    )
    s.say(
        "pipelines/sessions globs the same way, but its uploader never retries, so I'm "
        "leaving it out of this change."
    )
    s.edit(
        "pipelines/events/transform.py",
        "    return pd.concat(frames, ignore_index=True)",
        "    events = pd.concat(frames, ignore_index=True)\n"
        '    return events.drop_duplicates(subset="event_id", keep="first")',
    )
    s.probe("file change", "pipelines/events/transform.py", "drop_duplicates")
    s.bash(
        "pytest tests/events -q",
        "F...\n=================================== FAILURES ===================================\n"
        "______________________________ test_daily_counts _______________________________\n"
        "    assert len(events) == 1204\nE   assert 1203 == 1204\n"
        "FAILED tests/events/test_transform.py::test_daily_counts - assert 1203 == 1204\n"
        "1 failed, 3 passed in 0.91s",
        1,
    )
    s.read("tests/events/test_transform.py", _TEST)
    s.say(
        "The fixture generator reuses event_id 'e-77' for two different users, so the "
        "dedupe drops a real event. The fixture is wrong, not the dedupe: event ids are "
        "UUIDs in production."
    )
    s.probe("fact", "e-77")
    s.edit(
        "tests/events/conftest.py",
        '        event_id=f"e-{i % 1200}",',
        '        event_id=f"e-{i}",',
    )
    s.probe("file change", "tests/events/conftest.py", "+1 -1")
    s.bash("pytest tests/events -q", "....\n4 passed in 0.88s", 0)
    s.bash(
        "python -m pipelines.events.inspect --date 2024-03-02",
        "landing files: 24\nrows: 9,301,877\nduplicate event_id: 0\nnull user_id: 0",
        0,
    )
    s.bash(
        "python -m pipelines.events.inspect --date 2024-03-04",
        "landing files: 24\nrows: 9,420,310\nduplicate event_id: 0\nnull user_id: 0",
        0,
    )
    s.say("The neighbouring days have 24 files and no duplicate ids, so only the 3rd is affected.")
    s.probe("fact", "pytest tests/events -q", "exit 0", stale="exit 1")
    s.user(
        "The dashboard reads analytics.daily_active_users from the warehouse, refreshed at "
        "06:00 UTC, so whatever we fix has to land before then."
    )
    s.probe("fact", "06:00 UTC")
    s.user("Don't use inplace=True anywhere, we had a copy-vs-view bug from it last year.")
    s.probe("preference", "inplace=True")
    s.user(
        "For the bad days we'll backfill with a one-off script run by hand, "
        "scripts/backfill_dau.py."
    )
    s.write(
        "scripts/backfill_dau.py",
        '"""Recompute daily_active_users for a date range (one-off)."""\n\n'
        "import argparse\n\nfrom pipelines.events.jobs import run_daily\n\n\n"
        "def main() -> None:\n    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--start")\n    parser.add_argument("--end")\n'
        "    args = parser.parse_args()\n"
        "    for day in pd.date_range(args.start, args.end):\n"
        '        run_daily(day.strftime("%Y-%m-%d"))\n\n\n'
        'if __name__ == "__main__":\n    main()\n',
    )
    s.probe("file change", "scripts/backfill_dau.py", "deleted", stale="created")
    s.bash(
        "python scripts/backfill_dau.py --start 2024-03-03 --end 2024-03-03 --dry-run",
        "usage: backfill_dau.py [-h] [--start START] [--end END]\n"
        "backfill_dau.py: error: unrecognized arguments: --dry-run",
        2,
    )
    s.user("TODO: add a data quality check that event_id is unique in the daily output.")
    s.bash("ruff check pipelines scripts tests", "All checks passed!", 0)
    s.bash("git add -A && git commit -qm 'events: drop duplicate event ids after loading'", "", 0)
    s.cut()

    s.user(
        "Something else is off: a few hours show up as 1970-01-01 in the daily table. Can "
        "you find out why?"
    )
    s.bash(
        "python -m pipelines.events.inspect --date 2024-03-04 --column event_ts",
        "dtype per file: int64 x19, string x5\nsample string value: '2024-03-04T03:12:44.118Z'\n"
        "rows parsed as 1970: 127,554",
        0,
    )
    s.say(
        "Hours 00 to 04 come from mobile SDK 4.2, which writes event_ts as ISO strings; the "
        "other hours are int64 epoch milliseconds. `astype(EVENT_DTYPES)` raises on the "
        "strings, and pd.to_datetime with unit='ms' turns what's left into 1970 dates."
    )
    s.probe("fact", "SDK 4.2", "ISO strings")
    s.user("Parse everything as UTC, since the warehouse table is in UTC too.")
    s.probe("decision", "UTC", "warehouse")
    s.user(
        "We should tell the mobile team that SDK 4.2 writes ISO strings, but not now, after "
        "the fix ships."
    )
    s.probe("todo", "mobile team")
    s.read("pipelines/events/schema.py", _SCHEMA)
    s.edit(
        "pipelines/events/schema.py",
        '    "event_ts": "int64",',
        '    "event_ts": "datetime64[ms, UTC]",',
    )
    s.probe("file change", "pipelines/events/schema.py", "+1 -1")
    s.write(
        "pipelines/events/coerce.py",
        '"""Event timestamps arrive as epoch milliseconds or ISO strings, by SDK version."""\n\n'
        "import pandas as pd\n\n\n"
        "def event_times(column: pd.Series) -> pd.Series:\n"
        '    numeric = pd.to_numeric(column, errors="coerce")\n'
        '    as_ms = pd.to_datetime(numeric, unit="ms", utc=True)\n'
        '    as_iso = pd.to_datetime(column.where(numeric.isna()), utc=True, format="ISO8601")\n'
        "    return as_ms.fillna(as_iso)\n",
    )
    s.probe("file change", "pipelines/events/coerce.py", "created")
    s.edit(
        "pipelines/events/transform.py",
        "        pd.read_parquet(path).astype(EVENT_DTYPES)",
        '        pd.read_parquet(path).assign(event_ts=lambda f: event_times(f["event_ts"])).astype(EVENT_DTYPES)',
    )
    s.bash(
        "mypy pipelines/events",
        'pipelines/events/coerce.py:10: error: Incompatible return value type (got "Series[Any] | DataFrame", expected "Series[Any]")  [return-value]\n'
        "Found 1 error in 1 file (checked 7 source files)",
        1,
    )
    s.edit(
        "pipelines/events/coerce.py",
        "    return as_ms.fillna(as_iso)\n",
        "    combined: pd.Series = as_ms.fillna(as_iso)\n    return combined\n",
    )
    s.bash("mypy pipelines/events", "Success: no issues found in 7 source files", 0)
    s.probe("fact", "mypy pipelines/events", "exit 0", stale="exit 1")
    s.bash(
        "python -m pipelines.events.inspect --date 2024-03-04 --column event_ts",
        "dtype per file: datetime64[ms, UTC] x24\nrows parsed as 1970: 0",
        0,
    )
    s.read("dags/events_daily.py", _DAG)
    s.edit(
        "dags/events_daily.py",
        '    schedule="30 4 * * *",',
        '    schedule="0 5 * * *",',
        text="Moving the run to 05:00 so late hour-23 uploads make it in.",
    )
    s.user(
        "Leave the DAG schedule alone, other DAGs are chained to 04:30. Undo the change in "
        "events_daily.py."
    )
    s.bash("git checkout HEAD -- dags/events_daily.py", "", 0)
    s.probe("file change", "dags/events_daily.py", "reverted", stale="edited")
    s.user("We keep the 04:30 slot because the finance export waits on this DAG.")
    s.probe("decision", "04:30", "finance export")
    s.user(
        "A lifecycle rule that deletes the .retry files after 7 days belongs in a separate "
        "PR to the infra repo."
    )
    s.probe("todo", "lifecycle rule")
    s.user("Later: alert when an hour has more than one landing file.")
    s.probe("todo", "more than one landing file")
    s.user(
        "Reviews: I batch them on Friday afternoon. Always put the row counts before and "
        "after in the PR description."
    )
    s.probe("preference", "Friday afternoon")
    s.probe("preference", "row counts before and after")
    s.bash("pytest tests/events -q", "......\n6 passed in 1.12s", 0)
    s.bash("git add -A && git commit -qm 'events: parse ISO and epoch timestamps'", "", 0)
    s.cut()

    s.user(
        "Change of plan on the backfill: no hand-run script. Use `airflow dags backfill` "
        "for the date range so every day is logged and retryable like a normal run."
    )
    s.probe("decision", "airflow dags backfill", "retryable", stale="one-off script")
    s.bash("git rm -q scripts/backfill_dau.py", "", 0)
    s.write(
        "pipelines/events/dq.py",
        '"""Data quality checks run after the daily aggregate."""\n\nimport pandas as pd\n\n\n'
        "def check_unique_event_ids(events: pd.DataFrame) -> None:\n"
        '    dupes = int(events["event_id"].duplicated().sum())\n'
        "    if dupes:\n"
        '        raise ValueError(f"{dupes} duplicate event_id values")\n',
    )
    s.probe("file change", "pipelines/events/dq.py", "created")
    s.edit(
        "dags/events_daily.py",
        "    aggregate >> publish",
        '    quality = PythonOperator(task_id="dq_unique_ids", python_callable=run_dq)\n'
        "    aggregate >> quality >> publish",
    )
    s.bash("pytest tests/events -q", ".......\n7 passed in 1.20s", 0)
    s.say(
        "The event_id uniqueness check now runs between aggregate and publish, so that TODO is done."
    )
    s.probe("todo", "data quality check", "done", stale="open")
    s.bash(
        "airflow dags backfill events_daily -s 2024-03-03 -e 2024-03-04 --dry-run",
        "[2024-03-05 09:12:40] INFO - Dry run of DAG events_daily on 2024-03-03\n"
        "[2024-03-05 09:12:40] INFO - Dry run of DAG events_daily on 2024-03-04",
        0,
    )
    s.bash(
        "airflow dags backfill events_daily -s 2024-03-03 -e 2024-03-04",
        "[2024-03-05 09:14:02] INFO - [backfill progress] | finished run 2 of 2 | tasks "
        "waiting: 0 | succeeded: 6 | running: 0 | failed: 0",
        0,
    )
    s.bash(
        "bq query --nouse_legacy_sql 'select date, dau from analytics.daily_active_users "
        'where date between "2024-03-02" and "2024-03-04"\'',
        "+------------+---------+\n|    date    |   dau   |\n+------------+---------+\n"
        "| 2024-03-02 | 1179032 |\n| 2024-03-03 | 1184220 |\n| 2024-03-04 | 1190874 |\n"
        "+------------+---------+",
        0,
    )
    s.say(
        "2024-03-03 is 1184220 now, in line with the days around it; the 18% jump was the "
        "double-read hour 23."
    )
    s.probe("fact", "1184220")
    s.user("Please never print raw user_id values in logs or the PR, only counts.")
    s.probe("preference", "raw user_id")
    s.bash(
        "ruff check . && ruff format --check .", "All checks passed!\n41 files already formatted", 0
    )
    s.bash(
        "git add -A && git commit -qm 'events: dq check for unique ids; backfill through airflow'",
        "",
        0,
    )
    s.user("write the PR description with the before/after row counts")
    s.say(
        "PR description: 2024-03-03 had 9,812,455 rows before and 9,399,552 after the "
        "dedupe; DAU 1,397,611 before, 1,184,220 after. Timestamps from SDK 4.2 are parsed; "
        "a dq task checks event_id uniqueness before publish."
    )
    s.user("good, push it")
    s.bash(
        "git push -u origin fix/dau-double-count",
        " * [new branch]      fix/dau-double-count -> fix/dau-double-count",
        0,
    )
    return s.session
