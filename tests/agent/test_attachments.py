"""Images named in the prompt are attached; problems are reported, never fatal."""

from __future__ import annotations

import base64
from pathlib import Path

from steiner_tui.agent.attachments import find_image_attachments
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.engine.events import WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.skills.delta import InteractiveSkills
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 32


def test_paths_in_the_prompt_become_images(tmp_path: Path) -> None:
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "bug.png").write_bytes(PNG)
    (tmp_path / "photo.jpeg").write_bytes(JPEG)
    text = 'Compare @shots/bug.png with "photo.jpeg", and bug.png again: shots/bug.png.'
    attached = find_image_attachments(text, tmp_path)
    assert [i.media_type for i in attached.images] == ["image/png", "image/jpeg"]
    assert base64.b64decode(attached.images[0].data) == PNG
    assert attached.problems == ("image bug.png not attached: no such file",)


def test_absolute_paths_and_fake_images(tmp_path: Path) -> None:
    outside = tmp_path / "outside.gif"
    outside.write_bytes(b"GIF89a" + b"\x00" * 10)
    fake = tmp_path / "fake.png"
    fake.write_text("not an image")
    attached = find_image_attachments(f"see {outside} and {fake}", tmp_path / "project")
    assert [i.media_type for i in attached.images] == ["image/gif"]
    assert attached.problems == (f"image {fake} not attached: not a PNG, JPEG, GIF or WebP file",)


def test_text_without_images_attaches_nothing(tmp_path: Path) -> None:
    attached = find_image_attachments("rename config.pngx and data.json", tmp_path)
    assert attached.images == () and attached.problems == ()


async def test_driver_attaches_images_and_vision_models_receive_them(
    make_runner: RunnerFactory, project: Path
) -> None:

    (project / "screen.png").write_bytes(PNG)
    runner, provider, sink = make_runner(
        [Reply(["I see it"])], info=ModelInfo(32768, 4096, vision=True)
    )
    driver = InteractiveDriver(runner, InteractiveSkills(()))
    await driver.submit("what is wrong in screen.png? also missing.png")
    sent = provider.requests[0].messages[-1]
    assert sent.images and sent.images[0].media_type == "image/png"
    assert sent.content.endswith("what is wrong in screen.png? also missing.png")
    warnings = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert [w.message for w in warnings] == ["image missing.png not attached: no such file"]
    assert isinstance(runner.conversation[0], Message)


def test_an_image_name_that_is_a_symlink_loop_is_reported(tmp_path: Path) -> None:
    """``a.png -> b.png -> a.png``: reported as not attached; the message is still sent."""
    (tmp_path / "a.png").symlink_to("b.png")
    (tmp_path / "b.png").symlink_to("a.png")
    attached = find_image_attachments("look at a.png", tmp_path)
    assert attached.images == ()
    assert len(attached.problems) == 1
    assert attached.problems[0].startswith("image a.png not attached: ")
