"""/caro help topic: one rule explained with its picture, through the double and the real bot
process: drawn in the pool once, captioned and worded in the member's language."""

from __future__ import annotations

from testkit.boards import refusal
from testkit.bot_process import BotHandle
from testkit.replays import PNG, files


async def test_help_on_a_rule_shows_its_picture_in_the_members_language(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, an = double.add_member("alice"), double.add_member("an", locale="vi")
    asked = await alice.slash("caro help", topic="renju")
    (answer,) = await asked.followups(1, timeout=30.0)
    assert answer.ephemeral
    (embed,) = answer.embeds
    assert embed["title"] == "Renju: the forbidden moves"
    assert "double three, a double four" in embed["description"]
    assert embed["image"]["url"] == "attachment://rule.png"
    picture = files(answer)["rule.png"]
    assert picture.startswith(PNG)
    # Drawn once: the second asker of the same picture gets it at once, byte for byte.
    again = await double.add_member("carol").slash("caro help", topic="renju")
    assert again.callback_type == 4 and files(again.message)["rule.png"] == picture
    swap2 = await an.slash("caro help", topic="swap2")
    # Drawn for the first time here: a picture can take seconds on a loaded machine.
    (answer,) = await swap2.followups(1, timeout=30.0)
    assert answer.embeds[0]["title"] == "Swap2: cách khai cuộc"
    assert "/caro bắt-đầu" in answer.embeds[0]["description"]
    assert files(answer)["rule.png"] != picture
    assert double.violations == []


async def test_help_without_a_topic_is_the_whole_guide_and_a_forged_topic_is_refused(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    helped = await alice.slash("caro help")
    assert helped.embeds[0]["title"] == "How to play caro"
    forged = await alice.slash("caro help", topic="chess")
    assert refusal(forged) == "There is no such help topic."
