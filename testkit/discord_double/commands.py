"""Slash commands as a Discord client types them: the `data` of an APPLICATION_COMMAND (or
AUTOCOMPLETE) interaction, built from the commands the bot registered and checked against them."""

from __future__ import annotations

from typing import Any

from testkit.discord_double.host import Host, Person

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10
MAX_SAFE_INTEGER = 2**53


def find_command(double: Host, name: str,
                 guild_id: str | None = None) -> tuple[dict[str, Any], str | None]:
    for scope in (guild_id or double.guild_id, None):
        for cmd in double.commands.get(scope, []):
            if cmd.get("name") == name and int(cmd.get("type", 1)) == 1:
                return cmd, scope
    known = sorted({c["name"] for cmds in double.commands.values() for c in cmds})
    raise AssertionError(f"no slash command /{name} is registered (registered: {known})")


def command_data(double: Host, path: str, options: dict[str, Any],
                 focused: str | None = None, guild_id: str | None = None) -> dict[str, Any]:
    """The `data` of an APPLICATION_COMMAND interaction for "/command [group] sub" with options.

    With `focused`, the data of an AUTOCOMPLETE interaction instead: that option carries the
    partial text being typed, and required options may still be missing.
    """
    words = path.lstrip("/").split()
    if not words:
        raise AssertionError("slash() needs a command path such as 'caro start'")
    cmd, scope = find_command(double, words[0], guild_id)
    resolved: dict[str, dict[str, Any]] = {}
    level: list[dict[str, Any]] = cmd.get("options") or []
    top: list[dict[str, Any]] = []
    holder = top
    walked = [words[0]]
    for word in words[1:]:
        sub = next((o for o in level if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)
                    and o.get("name") == word), None)
        if sub is None:
            raise AssertionError(f"/{' '.join(walked)} has no subcommand {word!r} "
                                 f"(it has: {[o.get('name') for o in level]})")
        node: dict[str, Any] = {"name": word, "type": sub["type"], "options": []}
        holder.append(node)
        holder = node["options"]
        level = sub.get("options") or []
        walked.append(word)
    if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in level):
        raise AssertionError(f"/{' '.join(walked)} needs a subcommand: "
                             f"{[o.get('name') for o in level]}")
    by_name = {o["name"]: o for o in level}
    unknown = set(options) - set(by_name)
    if unknown:
        raise AssertionError(f"/{' '.join(walked)} has no option(s) {sorted(unknown)} "
                             f"(it has: {list(by_name)})")
    if focused is not None and not by_name.get(focused, {}).get("autocomplete"):
        raise AssertionError(f"/{' '.join(walked)}: option {focused!r} has no autocomplete")
    for opt in level:
        name = opt["name"]
        if name == focused:
            holder.append({"name": name, "type": opt["type"], "value": str(options.get(name, "")),
                           "focused": True})
            continue
        if name not in options or options[name] is None:
            if opt.get("required") and focused is None:
                raise AssertionError(f"/{' '.join(walked)}: option {name!r} is required "
                                     "(a Discord client cannot send the command without it)")
            continue
        value = _option_value(double, opt, options[name], resolved)
        holder.append({"name": name, "type": opt["type"], "value": value})
    data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
    if top:
        data["options"] = top
    if resolved:
        data["resolved"] = resolved
    if scope is not None:
        data["guild_id"] = scope
    return data


def _option_value(double: Host, opt: dict[str, Any], value: Any,
                  resolved: dict[str, dict[str, Any]]) -> Any:
    kind, name = opt["type"], opt["name"]
    if kind == STRING:
        out: Any = str(value)
    elif kind == INTEGER:
        if isinstance(value, bool) or not isinstance(value, int):
            raise AssertionError(f"option {name!r} is an INTEGER: a client only sends whole "
                                 f"numbers, not {value!r}")
        if abs(value) > MAX_SAFE_INTEGER:
            raise AssertionError(f"option {name!r}: Discord integers stay within ±2**53")
        out = value
    elif kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AssertionError(f"option {name!r} is a NUMBER, not {value!r}")
        out = float(value) if isinstance(value, float) else value
    elif kind == BOOLEAN:
        if not isinstance(value, bool):
            raise AssertionError(f"option {name!r} is a BOOLEAN, not {value!r}")
        out = value
    elif kind in (USER, MENTIONABLE) and isinstance(value, Person):
        out = value.id
        resolved.setdefault("users", {})[value.id] = value.user
        resolved.setdefault("members", {})[value.id] = value.member_payload(with_user=False)
    elif kind in (USER, MENTIONABLE):
        uid = str(value)
        member = double.members.get(uid)
        if member is None:
            raise AssertionError(f"option {name!r}: no member with id {uid}")
        return _option_value(double, opt, member, resolved)
    elif kind == CHANNEL:
        channel = double.channels.get(str(value))
        if channel is None:
            raise AssertionError(f"option {name!r}: no channel with id {value}")
        out = channel["id"]
        resolved.setdefault("channels", {})[out] = {
            "id": out, "name": channel["name"], "type": channel["type"],
            "permissions": double.app_permissions, "parent_id": None, "flags": 0,
        }
    elif kind == ROLE:
        role = next((r for g in double.guilds.values() for r in g.roles
                     if r["id"] == str(value)), None)
        if role is None:
            raise AssertionError(f"option {name!r}: no role with id {value}")
        out = role["id"]
        resolved.setdefault("roles", {})[out] = role
    else:
        raise AssertionError(f"option {name!r}: the double does not send option type {kind}")
    if double.strict_choices:
        _check_strict(opt, out)
    return out


def _check_strict(opt: dict[str, Any], value: Any) -> None:
    name = opt["name"]
    choices = opt.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise AssertionError(f"option {name!r}: {value!r} is not one of the choices "
                             f"{[c['value'] for c in choices]}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = opt.get("min_value"), opt.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise AssertionError(f"option {name!r}: {value} is outside [{low}, {high}]")
    if isinstance(value, str):
        low, high = opt.get("min_length", 0), opt.get("max_length", 6000)
        if not low <= len(value) <= high:
            raise AssertionError(f"option {name!r}: length {len(value)} outside [{low}, {high}]")
