"""The child ``bench_first_frame.py`` launches: import a program, note when, then run it.

``python first_frame_child.py bare|ours STAMP [SESSION]``: imports the bare Textual app
(``bare_app.py``) or the workbench's command (as the console script does,
``cli.import_command``), writes the ``time.perf_counter`` of the imports' start and end to STAMP,
then runs the app on the current folder (resuming SESSION if given). Only the standard library
is imported before the clock starts; the checkout above this folder is imported, not another.
"""

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    program, stamp = sys.argv[1], Path(sys.argv[2])
    resume = sys.argv[3] if len(sys.argv) > 3 else None
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    started = time.perf_counter()
    if program == "bare":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bare_app import BareApp

        stamp.write_text(f"{started} {time.perf_counter()}")
        BareApp().run()
        return
    from steiner_tui.cli import import_command

    command = import_command("steiner_tui.commands.app")
    stamp.write_text(f"{started} {time.perf_counter()}")
    command.run(argparse.Namespace(project=".", resume=resume))


if __name__ == "__main__":
    main()
