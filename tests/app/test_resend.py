"""What F5 sends again, as a function of the conversation and the pane's entries."""

from __future__ import annotations

from steiner_tui.agent.session_factory import STOPPED_MID_REPLY
from steiner_tui.app.resend import STOPPED, resend_text
from steiner_tui.app.transcript import ErrorEntry, NoticeEntry, ReplyEntry, UserEntry
from steiner_tui.engine.messages import Message

ASKED = Message("user", "what is in here?")
CUT = Message("assistant", "It hol", incomplete=True)


def test_a_message_without_a_reply_is_resent() -> None:
    entries = [UserEntry("what is in here?"), ErrorEntry("server", "gone")]
    assert resend_text([ASKED], entries, None) == "what is in here?"
    assert resend_text([ASKED], entries, "sent as typed") == "sent as typed"


def test_a_reply_an_error_cut_off_is_resent_but_not_one_stopped_with_esc() -> None:
    erred = [UserEntry("q"), ReplyEntry("It hol"), ErrorEntry("server", "gone"), NoticeEntry("x")]
    assert resend_text([ASKED, CUT], erred, None) == "q"
    stopped = [UserEntry("q"), ReplyEntry("It hol", interrupted=True), NoticeEntry("interrupted")]
    assert resend_text([ASKED, CUT], stopped, None) is None
    assert resend_text([ASKED, CUT], stopped, None, erred=True) == "q"  # the error being added


def test_a_reply_the_app_stopping_cut_off_is_resent_after_the_resume() -> None:
    """Killed or quit while the reply streamed: not the person's choice, as Esc is."""
    resumed = [
        UserEntry("q"),
        ReplyEntry("It hol", interrupted=True),
        NoticeEntry("resumed session 0123abcd (2 messages)", "session"),
        NoticeEntry(f"{STOPPED_MID_REPLY}; F5 resends your message", STOPPED),
    ]
    assert resend_text([ASKED, CUT], resumed, None) == "q"
    # Once the person has gone on (and stopped that reply with Esc), it is theirs again.
    again = [*resumed, UserEntry("and?"), ReplyEntry("So", interrupted=True)]
    assert resend_text([ASKED, CUT, Message("user", "and?"), CUT], again, "and?") is None


def test_nothing_is_resent_after_a_whole_reply_or_in_an_empty_conversation() -> None:
    answered = [ASKED, Message("assistant", "It holds a README.")]
    assert resend_text(answered, [UserEntry("q")], "q") is None
    assert resend_text([], [], None) is None
