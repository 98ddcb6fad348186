"""Every user-facing string of the bot, keyed by id, so a translation is one more catalogue.

Strings are `str.format` templates; `t(key, **values)` fills them in. Code never builds English
sentences itself: it picks ids and passes values.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_LOCALE = "en"

EN: dict[str, str] = {
    # ------------------------------------------------------------ start-up (console, not Discord)
    "console.no_token": (
        "caro-bot needs a Discord bot token and found none. Get one from the Discord Developer "
        "Portal (https://discord.com/developers/applications -> Applications -> your app -> Bot "
        "-> Reset Token), then put it in a file named .env in the directory you start the bot "
        "from, as a line DISCORD_TOKEN=your-token (see .env.example), or set the DISCORD_TOKEN "
        "environment variable."
    ),
    "console.bad_token": (
        "Discord refused the bot token (it is wrong, or it was reset). Copy a fresh one from the "
        "Developer Portal (your app -> Bot -> Reset Token) into DISCORD_TOKEN in .env."
    ),
    "console.bad_setting": "Setting {name} is invalid: {problem}",
    "console.not_a_number": "expected a whole number, got {value!r}",
    "console.not_positive": "expected a number of seconds above 0, got {value!r}",
    "console.bad_log_level": "expected DEBUG, INFO, WARNING or ERROR, got {value!r}",
    "console.privileged_intents": (
        "Discord refused the connection because the bot asks for an intent it is not allowed to "
        "use. caro-bot needs no privileged intents; check you are running an unmodified build."
    ),
    # ------------------------------------------------------------ command names and descriptions
    "cmdname.caro": "caro",
    "cmdname.start": "start",
    "cmdname.challenge": "challenge",
    "cmdname.watch": "watch",
    "cmdname.resign": "resign",
    "cmdname.hint": "hint",
    "cmdname.rematch": "rematch",
    "cmdname.settings": "settings",
    "cmdname.stats": "stats",
    "cmdname.leaderboard": "leaderboard",
    "cmdname.help": "help",
    "optname.difficulty": "difficulty",
    "optname.size": "size",
    "optname.rule": "rule",
    "optname.first": "first",
    "optname.opponent": "opponent",
    "optname.x_level": "x_level",
    "optname.o_level": "o_level",
    "optname.timeout": "timeout",
    "optname.ai_timeout": "ai_timeout",
    "optname.user": "user",
    "optname.scope": "scope",
    "optname.mode": "mode",
    "cmd.group": "Play m,n,k games (tic-tac-toe, caro, gomoku) against the AI or each other",
    "cmd.start": "Start a game against the AI in this channel",
    "cmd.start.difficulty": "How strong the AI plays (default: normal; adaptive: near your rating)",
    "cmd.start.size": "Board size and line to win (default 3x3, 3 in a row; or type e.g. 12x12k5)",
    "cmd.start.rule": "Which lines win (default: freestyle; caro on 15x15)",
    "cmd.start.first": "Who moves first and plays X (default: you)",
    "cmd.challenge": "Challenge a member of this server to a game",
    "cmd.challenge.opponent": "Who you want to play",
    "cmd.challenge.first": "Who moves first and plays X (default: you)",
    "cmd.watch": "Watch two AIs play each other in this channel",
    "cmd.watch.x_level": "Level of the AI playing X (default: normal)",
    "cmd.watch.o_level": "Level of the AI playing O (default: hard)",
    "cmd.resign": "Give up your running game in this channel",
    "cmd.hint": "The engine's suggestion for your move (games against the easy or normal AI)",
    "cmd.rematch": "Play your last game in this channel again, colours swapped",
    "cmd.settings": "Turn time limits of this server (needs Manage Server)",
    "cmd.settings.timeout": "Minutes per move in games between two people",
    "cmd.settings.ai_timeout": "Minutes per move in games against the AI",
    "cmd.stats": "Rating, wins, draws and losses of a player, by mode",
    "cmd.stats.user": "Whose stats to show (default: you)",
    "cmd.leaderboard": "The best-rated players",
    "cmd.leaderboard.scope": "This server or all servers (default: this server)",
    "cmd.leaderboard.mode": "Games against people or against the AI (default: against people)",
    "cmd.help": "How to play",
    # ------------------------------------------------------------ option choices
    "level.easy": "easy",
    "level.normal": "normal",
    "level.hard": "hard",
    "level.impossible": "impossible",
    "level.adaptive": "adaptive (nearest your rating)",
    "size.3x3": "3x3, 3 in a row",
    "size.4x4": "4x4, 4 in a row",
    "size.5x5": "5x5, 4 in a row",
    "size.9x9": "9x9, 5 in a row",
    "size.15x15": "15x15, 5 in a row (caro)",
    "size.19x19": "19x19, 5 in a row",
    "size.custom": "{rows}x{cols}, {k} in a row",
    "size.allowed": "Sizes: a preset, or rows x columns from 1x1 to {max}x{max} (like 12x12k5)",
    "first.them": "them",
    "scope.server": "this server",
    "scope.global": "all servers",
    "mode.pvp": "against people",
    "mode.ai": "against the AI",
    "rule.freestyle": "freestyle (k or more in a row)",
    "rule.exact": "exact (exactly k; longer lines do not count)",
    "rule.caro": "caro (exactly k, not blocked at both ends)",
    "rulename.freestyle": "freestyle",
    "rulename.exact": "exact",
    "rulename.caro": "caro rule",
    "first.me": "me",
    "first.ai": "the AI",
    "first.random": "random",
    # ------------------------------------------------------------ option errors (ephemeral)
    "error.bad_choice": "**{value}** is not a valid {option}. Choose one of: {choices}.",
    "error.bad_size": (
        "**{value}** is not a valid size. Choose one of: {choices}; or type rows x columns up "
        "to 26x26, with k for the winning line if you like, e.g. 12x12 or 12x12k4."
    ),
    "option.difficulty": "difficulty",
    "option.size": "size",
    "option.rule": "rule",
    "option.first": "first player",
    "error.guild_only": "caro games are played in a server channel, not in direct messages.",
    "error.already_playing": (
        "You already have a game running in this channel: {link}. Finish it before starting "
        "another."
    ),
    "error.already_playing_nolink": (
        "You already have a game running in this channel. Finish it before starting another."
    ),
    "error.internal": "Something went wrong on my side; the game was not changed. Try again.",
    "error.bad_timeout": "A turn time limit is between {low} and {high} minutes.",
    "error.no_permission": "Only members with the Manage Server permission can change settings.",
    "error.no_running_game": "You have no running game in this channel.",
    "error.no_finished_game": "You have not played a game in this channel yet.",
    "settings.saved": (
        "Turn time limits in this server: **{pvp}** min per move against a person, **{ai}** min "
        "against the AI. A player who runs out of time loses."
    ),
    "resign.done": "You resigned: {link}",
    "challenge.self": "You cannot challenge yourself. Try `/caro start` to play the AI.",
    "challenge.bot": "Bots cannot play. Challenge a person, or use `/caro start` for the AI.",
    "challenge.busy": "{user} is already playing in this channel. Try again when they finish.",
    "challenge.not_for_you": "This challenge is for {user}; only they can answer it.",
    "challenge.closed": "This challenge is no longer open.",
    "challenge.someone_busy": "One of you started another game meanwhile; challenge again later.",
    "challenge.text": (
        "{opponent}, {challenger} challenges you to **{rows}x{cols}, {k} in a row, {rule}**. "
        "{first} The challenge expires {when}."
    ),
    "challenge.first.me": "{challenger} moves first (X).",
    "challenge.first.them": "{opponent} moves first (X).",
    "challenge.first.random": "A coin toss decides who moves first.",
    "challenge.declined": "{challenger}'s challenge to {opponent} was declined.",
    "challenge.withdrawn": "{challenger} withdrew the challenge to {opponent}.",
    "challenge.expired": "{challenger}'s challenge to {opponent} expired without an answer.",
    "challenge.accepted": "{opponent} accepted {challenger}'s challenge: {link}",
    "hint.not_here": "Hints are only given in games against the easy or normal AI.",
    "hint.text": "Hint: play **{cell}** ({reason}). Hints used in this game: {count}.",
    "rematch.still_running": "This game is still running.",
    "button.resign": "Resign",
    "button.hint": "Hint",
    "button.rematch": "Rematch",
    "button.accept": "Accept",
    "button.decline": "Decline",
    "button.type": "Type a move",
    "button.stop": "Stop",
    "modal.title": "Type a move",
    "modal.label": "Cell: column letter, then row number",
    "modal.placeholder": "H8",
    # ------------------------------------------------------------ button errors (ephemeral)
    "click.forged": "That button is not one of this bot's game buttons; nothing was changed.",
    "click.no_game": "That game does not exist (any more); nothing was changed.",
    "click.not_your_game": "This is not your game. Start your own with `/caro start`.",
    "click.finished": "This game is over. Start a new one with `/caro start`.",
    "click.stale": (
        "That board is out of date (the game has moved on); use the latest board of this game."
    ),
    "click.not_your_turn": "Wait for the AI to answer before you move.",
    "click.wait_for": "It is {user}'s turn; wait for their move.",
    "click.off_board": "There is no cell {cell} on this board; nothing was changed.",
    "click.taken": "{cell} is already taken.",
    "click.wrong_message": (
        "That button belongs to another board, not this one; nothing was changed."
    ),
    "click.no_cell_typed": "Type a cell, like H8: a column letter, then a row number.",
    "error.cooldown": "Slow down a little: try again in {seconds} s.",
    # ------------------------------------------------------------ the game message
    "game.title": "**{rows}x{cols}, {k} in a row, {rule}**",
    "game.players": "{player} ({player_mark}) vs AI ({ai_mark}, {level})",
    "game.players.pvp": "{x} (X) vs {o} (O)",
    "game.players.watch": "AI {x_level} (X) vs AI {o_level} (O)",
    "game.moves": "Moves played: {ply}.",
    "game.ai_moved": "AI played **{cell}**: {reason}.",
    "game.ai_moved.watch": "AI {level} played **{cell}**: {reason}.",
    "game.ai_thinking": "The AI is thinking...",
    "game.ai_thinking.watch": "AI {level} ({mark}) is thinking...",
    "game.your_turn": "Your turn ({mark}).",
    "game.turn": "{user} to move ({mark}).",
    "game.clock": "Time runs out {when}.",
    "game.hints": "Hints used: {count}.",
    "game.result.win": "**You win!**",
    "game.result.loss": "**The AI wins.**",
    "game.result.draw": "**Draw.**",
    "game.result.ai.resign": "**The AI wins: you resigned.**",
    "game.result.ai.timeout": "**The AI wins: you ran out of time.**",
    "game.result.pvp.line": "**{winner} wins!**",
    "game.result.pvp.resign": "**{winner} wins: {loser} resigned.**",
    "game.result.pvp.timeout": "**{winner} wins: {loser} ran out of time.**",
    "game.result.watch.line": "**AI {level} ({mark}) wins.**",
    "game.rating": "Rating {user}: {before} -> {after}.",
    "game.abandoned": "This game was abandoned.",
    "game.watch.stopped": "**Stopped before the end.**",
    "watch.running": (
        "Two AIs are already playing in this channel: {link}. Watch that game, or stop it "
        "with its Stop button first."
    ),
    "watch.stop_denied": (
        "Only {user}, who started this game, or a member with the Manage Messages "
        "permission can stop it."
    ),
    "watch.not_watch": "Only a game between two AIs can be stopped; resign instead.",
    "reason.win": "completes a winning line",
    "reason.block": "blocks your winning line",
    "reason.fork": "makes two threats at once",
    "reason.threat": "threatens to win next move",
    "reason.defend": "defends against your threat",
    "reason.center": "takes the centre",
    "reason.develop": "builds up its position",
    "reason.unknown": "its choice",
    # ------------------------------------------------------------ stats and leaderboard
    "stats.title": "Stats of {name}",
    "stats.overall": "Overall",
    "stats.line": "{wins} W / {draws} D / {losses} L, {games} played, win rate {rate}",
    "stats.none": "No finished games in this server yet.",
    "stats.points": "Points: {points}",
    "stats.mode": "{mode}: rating {rating}",
    "stats.level": "vs AI {level}",
    "board.title": "Leaderboard: {scope}, {mode}",
    "board.server_title": "Top {count} of this server",
    "board.empty": (
        "Nobody has {min} rated games here yet. Play some: `/caro start` or `/caro challenge`."
    ),
    "board.line": "**{rank}.** {user}: {rating} ({wins} W / {draws} D / {losses} L)",
    "board.rule": (
        "Elo ratings (start 1200, K=32); the AI levels count as players rated easy 800, normal "
        "1200, hard 1600, impossible 2000. Listed after {min} rated games in this mode."
    ),
    # ------------------------------------------------------------ help
    "help.title": "How to play caro",
    "help.body": (
        "Get k of your marks in a row (across, down or diagonally) before the AI does.\n\n"
        "**/caro start** starts a game in this channel. Options:\n"
        "- `difficulty`: easy, normal (default), hard or impossible\n"
        "- `size`: 3x3 with 3 in a row (default), 4x4 with 4, or 5x5 with 4\n"
        "- `rule`: freestyle (default: k or more in a row win), exact (exactly k), or caro "
        "(exactly k, and not blocked by the opponent at both ends)\n"
        "- `first`: me (default), ai or random; whoever moves first plays X\n\n"
        "Click an empty cell to play there; the AI answers and says why it chose its move. "
        "Only you can click your board, and you can have one game per channel.\n\n"
        "**/caro challenge** `opponent` plays another member (they accept or decline). "
        "**/caro watch** lets two AIs play. Big boards (9x9, 15x15 caro, 19x19) are drawn as a "
        "picture: play with the window of buttons (pan it with the arrows) or **Type a move** "
        "such as `H8`. **/caro resign** gives up; a player who runs out of time loses "
        "(**/caro settings** sets the time per move). **/caro hint** and **/caro rematch** do "
        "what the Hint and Rematch buttons do. The member who started **/caro watch** (or "
        "anyone with Manage Messages) can end it with its Stop button.\n\n"
        "**/caro stats** shows a player's rating and record with this server's top 10; "
        "**/caro leaderboard** ranks players by rating."
    ),
}

# Vietnamese (vi). Command names use Vietnamese words in lower case joined by hyphens, as
# Discord requires; messages say "cờ caro" as players do.
VI: dict[str, str] = {
    # ------------------------------------------------------------ start-up (console)
    "console.no_token": (
        "caro-bot cần token của bot Discord nhưng không tìm thấy. Lấy token trong Discord "
        "Developer Portal (https://discord.com/developers/applications -> Applications -> ứng "
        "dụng của bạn -> Bot -> Reset Token), rồi ghi vào tệp .env trong thư mục chạy bot, "
        "thành dòng DISCORD_TOKEN=token-của-bạn (xem .env.example), hoặc đặt biến môi trường "
        "DISCORD_TOKEN."
    ),
    "console.bad_token": (
        "Discord từ chối token của bot (token sai hoặc đã bị đặt lại). Chép token mới từ "
        "Developer Portal (ứng dụng -> Bot -> Reset Token) vào DISCORD_TOKEN trong .env."
    ),
    "console.bad_setting": "Thiết lập {name} không hợp lệ: {problem}",
    "console.not_a_number": "cần một số nguyên, nhận được {value!r}",
    "console.not_positive": "cần một số giây lớn hơn 0, nhận được {value!r}",
    "console.bad_log_level": "cần DEBUG, INFO, WARNING hoặc ERROR, nhận được {value!r}",
    "console.privileged_intents": (
        "Discord từ chối kết nối vì bot xin một intent không được phép dùng. caro-bot không cần "
        "intent đặc quyền nào; hãy kiểm tra bạn đang chạy bản chưa bị sửa đổi."
    ),
    # ------------------------------------------------------------ command names (lower case)
    "cmdname.caro": "caro",
    "cmdname.start": "bắt-đầu",
    "cmdname.challenge": "thách-đấu",
    "cmdname.watch": "xem-máy-đấu",
    "cmdname.resign": "đầu-hàng",
    "cmdname.hint": "gợi-ý",
    "cmdname.rematch": "đấu-lại",
    "cmdname.settings": "cài-đặt",
    "cmdname.stats": "thống-kê",
    "cmdname.leaderboard": "bảng-xếp-hạng",
    "cmdname.help": "hướng-dẫn",
    "optname.difficulty": "độ-khó",
    "optname.size": "cỡ-bàn",
    "optname.rule": "luật",
    "optname.first": "đi-trước",
    "optname.opponent": "đối-thủ",
    "optname.x_level": "trình-độ-x",
    "optname.o_level": "trình-độ-o",
    "optname.timeout": "thời-gian",
    "optname.ai_timeout": "thời-gian-với-máy",
    "optname.user": "người-chơi",
    "optname.scope": "phạm-vi",
    "optname.mode": "chế-độ",
    # ------------------------------------------------------------ command descriptions
    "cmd.group": "Chơi cờ caro, cờ ca-rô 3x3 (tic-tac-toe) và gomoku với máy hoặc với nhau",
    "cmd.start": "Bắt đầu một ván với máy trong kênh này",
    "cmd.start.difficulty": "Máy chơi mạnh đến đâu (mặc định: vừa; thích ứng: gần điểm của bạn)",
    "cmd.start.size": "Cỡ bàn và số quân liên tiếp để thắng (mặc định 3x3, 3 quân; hoặc gõ 12x12k5)",
    "cmd.start.rule": "Đường nào được tính thắng (mặc định: tự do; luật caro với bàn 15x15)",
    "cmd.start.first": "Ai đi trước và cầm quân X (mặc định: bạn)",
    "cmd.challenge": "Thách đấu một thành viên của máy chủ này",
    "cmd.challenge.opponent": "Người bạn muốn đấu",
    "cmd.challenge.first": "Ai đi trước và cầm quân X (mặc định: bạn)",
    "cmd.watch": "Xem hai máy đấu với nhau trong kênh này",
    "cmd.watch.x_level": "Trình độ của máy cầm X (mặc định: vừa)",
    "cmd.watch.o_level": "Trình độ của máy cầm O (mặc định: khó)",
    "cmd.resign": "Chịu thua ván đang chơi trong kênh này",
    "cmd.hint": "Gợi ý nước đi từ máy (trong ván đấu với máy ở mức dễ hoặc vừa)",
    "cmd.rematch": "Chơi lại ván gần nhất của bạn trong kênh này, đổi màu quân",
    "cmd.settings": "Thời gian mỗi nước của máy chủ này (cần quyền Quản lý máy chủ)",
    "cmd.settings.timeout": "Số phút cho mỗi nước khi hai người đấu với nhau",
    "cmd.settings.ai_timeout": "Số phút cho mỗi nước khi đấu với máy",
    "cmd.stats": "Điểm xếp hạng và số ván thắng, hòa, thua của một người chơi",
    "cmd.stats.user": "Xem thống kê của ai (mặc định: bạn)",
    "cmd.leaderboard": "Những người chơi có điểm cao nhất",
    "cmd.leaderboard.scope": "Máy chủ này hay mọi máy chủ (mặc định: máy chủ này)",
    "cmd.leaderboard.mode": "Ván đấu với người hay với máy (mặc định: với người)",
    "cmd.help": "Cách chơi",
    # ------------------------------------------------------------ option choices
    "level.easy": "dễ",
    "level.normal": "vừa",
    "level.hard": "khó",
    "level.impossible": "bất khả chiến bại",
    "level.adaptive": "thích ứng (gần điểm của bạn)",
    "size.3x3": "3x3, 3 quân liên tiếp",
    "size.4x4": "4x4, 4 quân liên tiếp",
    "size.5x5": "5x5, 4 quân liên tiếp",
    "size.9x9": "9x9, 5 quân liên tiếp",
    "size.15x15": "15x15, 5 quân liên tiếp (cờ caro)",
    "size.19x19": "19x19, 5 quân liên tiếp",
    "size.custom": "{rows}x{cols}, {k} quân liên tiếp",
    "size.allowed": "Kích thước: một cỡ có sẵn, hoặc hàng x cột từ 1x1 đến {max}x{max} (như 12x12k5)",
    "first.them": "đối thủ",
    "scope.server": "máy chủ này",
    "scope.global": "mọi máy chủ",
    "mode.pvp": "đấu với người",
    "mode.ai": "đấu với máy",
    "rule.freestyle": "tự do (k quân trở lên liên tiếp)",
    "rule.exact": "đúng k (đúng k quân; dài hơn không tính)",
    "rule.caro": "caro (đúng k quân, không bị chặn hai đầu)",
    "rulename.freestyle": "luật tự do",
    "rulename.exact": "luật đúng k",
    "rulename.caro": "luật caro",
    "first.me": "tôi",
    "first.ai": "máy",
    "first.random": "ngẫu nhiên",
    # ------------------------------------------------------------ option errors (ephemeral)
    "error.bad_choice": "**{value}** không phải {option} hợp lệ. Hãy chọn một trong: {choices}.",
    "error.bad_size": (
        "**{value}** không phải cỡ bàn hợp lệ. Hãy chọn một trong: {choices}; hoặc gõ số hàng x "
        "số cột, tối đa 26x26, có thể thêm k là số quân liên tiếp để thắng, ví dụ 12x12 hoặc "
        "12x12k4."
    ),
    "option.difficulty": "độ khó",
    "option.size": "cỡ bàn",
    "option.rule": "luật",
    "option.first": "người đi trước",
    "error.guild_only": (
        "Cờ caro được chơi trong kênh của máy chủ, không phải trong tin nhắn riêng."
    ),
    "error.already_playing": (
        "Bạn đang có một ván trong kênh này: {link}. Hãy chơi xong ván đó trước khi bắt đầu ván "
        "mới."
    ),
    "error.already_playing_nolink": (
        "Bạn đang có một ván trong kênh này. Hãy chơi xong ván đó trước khi bắt đầu ván mới."
    ),
    "error.internal": "Bên mình có lỗi; ván cờ không bị thay đổi. Bạn thử lại nhé.",
    "error.bad_timeout": "Thời gian mỗi nước phải từ {low} đến {high} phút.",
    "error.no_permission": "Chỉ thành viên có quyền Quản lý máy chủ mới đổi được cài đặt.",
    "error.no_running_game": "Bạn không có ván nào đang chơi trong kênh này.",
    "error.no_finished_game": "Bạn chưa chơi ván nào trong kênh này.",
    "settings.saved": (
        "Thời gian mỗi nước ở máy chủ này: **{pvp}** phút khi đấu với người, **{ai}** phút khi "
        "đấu với máy. Ai hết giờ sẽ bị xử thua."
    ),
    "resign.done": "Bạn đã chịu thua: {link}",
    "challenge.self": "Bạn không thể tự thách đấu mình. Dùng `/caro start` để chơi với máy.",
    "challenge.bot": "Bot không chơi được. Hãy thách đấu một người, hoặc dùng `/caro start` để "
    "chơi với máy.",
    "challenge.busy": "{user} đang có ván trong kênh này. Hãy thử lại khi họ chơi xong.",
    "challenge.not_for_you": "Lời thách đấu này dành cho {user}; chỉ người đó mới trả lời được.",
    "challenge.closed": "Lời thách đấu này đã đóng.",
    "challenge.someone_busy": "Một trong hai bạn vừa bắt đầu ván khác; hãy thách đấu lại sau.",
    "challenge.text": (
        "{opponent} ơi, {challenger} thách bạn một ván **{rows}x{cols}, {k} quân liên tiếp, "
        "{rule}**. {first} Lời thách đấu hết hạn {when}."
    ),
    "challenge.first.me": "{challenger} đi trước (X).",
    "challenge.first.them": "{opponent} đi trước (X).",
    "challenge.first.random": "Tung đồng xu để chọn người đi trước.",
    "challenge.declined": "{opponent} đã từ chối lời thách đấu của {challenger}.",
    "challenge.withdrawn": "{challenger} đã rút lại lời thách đấu với {opponent}.",
    "challenge.expired": "Lời thách đấu của {challenger} gửi {opponent} đã hết hạn mà không có "
    "trả lời.",
    "challenge.accepted": "{opponent} đã nhận lời thách đấu của {challenger}: {link}",
    "hint.not_here": "Chỉ có gợi ý trong ván đấu với máy ở mức dễ hoặc vừa.",
    "hint.text": "Gợi ý: đánh **{cell}** ({reason}). Số lần gợi ý trong ván này: {count}.",
    "rematch.still_running": "Ván này vẫn đang diễn ra.",
    "button.resign": "Chịu thua",
    "button.hint": "Gợi ý",
    "button.rematch": "Đấu lại",
    "button.accept": "Nhận lời",
    "button.decline": "Từ chối",
    "button.type": "Nhập nước đi",
    "button.stop": "Dừng",
    "modal.title": "Nhập nước đi",
    "modal.label": "Ô cờ: chữ cột rồi số hàng",
    "modal.placeholder": "H8",
    # ------------------------------------------------------------ button errors (ephemeral)
    "click.forged": "Nút này không phải nút ván cờ của bot; không có gì thay đổi.",
    "click.no_game": "Ván cờ này không tồn tại (nữa); không có gì thay đổi.",
    "click.not_your_game": (
        "Đây không phải ván của bạn. Hãy bắt đầu ván của bạn bằng `/caro start`."
    ),
    "click.finished": "Ván này đã kết thúc. Bắt đầu ván mới bằng `/caro start`.",
    "click.stale": "Bàn cờ này đã cũ (ván đã đi tiếp); hãy dùng bàn cờ mới nhất của ván.",
    "click.not_your_turn": "Hãy đợi máy đi xong rồi hãy đánh.",
    "click.wait_for": "Đang đến lượt {user}; hãy đợi họ đi.",
    "click.off_board": "Bàn cờ không có ô {cell}; không có gì thay đổi.",
    "click.taken": "Ô {cell} đã có quân.",
    "click.wrong_message": "Nút này thuộc một bàn cờ khác, không phải bàn này; không có gì thay đổi.",
    "click.no_cell_typed": "Hãy nhập một ô, ví dụ H8: chữ cột rồi số hàng.",
    "error.cooldown": "Chậm lại một chút nhé: thử lại sau {seconds} giây.",
    # ------------------------------------------------------------ the game message
    "game.title": "**{rows}x{cols}, {k} quân liên tiếp, {rule}**",
    "game.players": "{player} ({player_mark}) đấu với máy ({ai_mark}, {level})",
    "game.players.pvp": "{x} (X) đấu với {o} (O)",
    "game.players.watch": "Máy {x_level} (X) đấu với máy {o_level} (O)",
    "game.moves": "Số nước đã đi: {ply}.",
    "game.ai_moved": "Máy đánh **{cell}**: {reason}.",
    "game.ai_moved.watch": "Máy {level} đánh **{cell}**: {reason}.",
    "game.ai_thinking": "Máy đang nghĩ...",
    "game.ai_thinking.watch": "Máy {level} ({mark}) đang nghĩ...",
    "game.your_turn": "Đến lượt bạn ({mark}).",
    "game.turn": "Đến lượt {user} ({mark}).",
    "game.clock": "Hết giờ {when}.",
    "game.hints": "Số lần gợi ý: {count}.",
    "game.result.win": "**Bạn thắng!**",
    "game.result.loss": "**Máy thắng.**",
    "game.result.draw": "**Hòa.**",
    "game.result.ai.resign": "**Máy thắng: bạn đã chịu thua.**",
    "game.result.ai.timeout": "**Máy thắng: bạn đã hết giờ.**",
    "game.result.pvp.line": "**{winner} thắng!**",
    "game.result.pvp.resign": "**{winner} thắng: {loser} đã chịu thua.**",
    "game.result.pvp.timeout": "**{winner} thắng: {loser} đã hết giờ.**",
    "game.result.watch.line": "**Máy {level} ({mark}) thắng.**",
    "game.rating": "Điểm của {user}: {before} -> {after}.",
    "game.abandoned": "Ván này đã bị bỏ dở.",
    "game.watch.stopped": "**Đã dừng trước khi kết thúc.**",
    "watch.running": (
        "Hai máy đang đấu trong kênh này: {link}. Hãy xem ván đó, hoặc dừng nó bằng nút Dừng "
        "trước."
    ),
    "watch.stop_denied": (
        "Chỉ {user}, người bắt đầu ván này, hoặc thành viên có quyền Quản lý tin nhắn mới "
        "dừng được ván."
    ),
    "watch.not_watch": "Chỉ dừng được ván giữa hai máy; hãy chịu thua nếu muốn bỏ ván.",
    "reason.win": "hoàn thành một đường thắng",
    "reason.block": "chặn đường thắng của bạn",
    "reason.fork": "tạo hai nước đe dọa cùng lúc",
    "reason.threat": "đe dọa thắng ở nước sau",
    "reason.defend": "phòng thủ trước đe dọa của bạn",
    "reason.center": "chiếm ô trung tâm",
    "reason.develop": "phát triển thế cờ",
    "reason.unknown": "lựa chọn của máy",
    # ------------------------------------------------------------ stats and leaderboard
    "stats.title": "Thống kê của {name}",
    "stats.overall": "Tổng cộng",
    "stats.line": "{wins} thắng / {draws} hòa / {losses} thua, {games} ván, tỉ lệ thắng {rate}",
    "stats.none": "Chưa có ván nào kết thúc ở máy chủ này.",
    "stats.points": "Điểm: {points}",
    "stats.mode": "{mode}: điểm xếp hạng {rating}",
    "stats.level": "đấu với máy {level}",
    "board.title": "Bảng xếp hạng: {scope}, {mode}",
    "board.server_title": "{count} người dẫn đầu máy chủ này",
    "board.empty": "Chưa ai có đủ {min} ván tính điểm ở đây. Hãy chơi vài ván: `/caro start` "
    "hoặc `/caro challenge`.",
    "board.line": "**{rank}.** {user}: {rating} ({wins} thắng / {draws} hòa / {losses} thua)",
    "board.rule": (
        "Điểm Elo (khởi đầu 1200, K=32); các mức của máy được tính như người chơi có điểm dễ "
        "800, vừa 1200, khó 1600, bất khả chiến bại 2000. Có tên trên bảng sau {min} ván tính "
        "điểm ở chế độ đó."
    ),
    # ------------------------------------------------------------ help
    "help.title": "Cách chơi cờ caro",
    "help.body": (
        "Xếp được k quân của mình thành một hàng (ngang, dọc hoặc chéo) trước đối thủ.\n\n"
        "**/caro start** bắt đầu một ván với máy trong kênh này. Tùy chọn:\n"
        "- `difficulty`: dễ, vừa (mặc định), khó, bất khả chiến bại, hoặc thích ứng\n"
        "- `size`: 3x3 (mặc định), 4x4, 5x5, 9x9, 15x15 (cờ caro) hoặc 19x19\n"
        "- `rule`: tự do (k quân trở lên), đúng k, hoặc caro (đúng k quân và không bị đối thủ "
        "chặn hai đầu)\n"
        "- `first`: tôi (mặc định), máy hoặc ngẫu nhiên; ai đi trước cầm quân X\n\n"
        "Bấm vào một ô trống để đánh; máy đáp lại và nói lý do chọn nước đó. Chỉ bạn bấm được "
        "bàn cờ của mình, và mỗi kênh bạn chỉ có một ván.\n\n"
        "**/caro challenge** `opponent` đấu với một thành viên khác (họ nhận lời hoặc từ chối). "
        "**/caro watch** cho hai máy đấu với nhau. Bàn lớn (9x9, 15x15 caro, 19x19) được vẽ thành "
        "hình: đánh bằng khung nút (dời khung bằng các mũi tên) hoặc **Nhập nước đi** như `H8`. "
        "**/caro resign** để chịu thua; ai hết giờ sẽ bị xử thua (**/caro settings** đặt thời "
        "gian mỗi nước). **/caro hint** và **/caro rematch** làm việc của nút Gợi ý và Đấu lại. "
        "Người bắt đầu **/caro watch** (hoặc ai có quyền Quản lý tin nhắn) có thể dừng ván bằng "
        "nút Dừng.\n\n"
        "**/caro stats** cho xem điểm xếp hạng và thành tích cùng 10 người dẫn đầu máy chủ; "
        "**/caro leaderboard** xếp hạng người chơi theo điểm."
    ),
}

CATALOGUES: dict[str, Mapping[str, str]] = {DEFAULT_LOCALE: EN, "vi": VI}


def t(key: str, /, **values: object) -> str:
    """The English text `key`, filled with `values`."""
    return text_in(DEFAULT_LOCALE, key, **values)


class TextId(str):
    """A value that is itself a text id, translated along with the text it fills in (e.g. the
    name of an option inside an error message kept for a user of another language)."""

    __slots__ = ()


def text_in(locale: str, key: str, /, **values: object) -> str:
    """The text `key` in `locale` (e.g. "vi" or "en-US"), falling back to English."""
    catalogue = CATALOGUES.get(locale.split("-")[0].lower(), EN)
    template = catalogue.get(key)
    if template is None:
        template = EN[key]  # KeyError here is a programming mistake: an id with no text.
    if not values:
        return template
    filled = {
        name: text_in(locale, value) if isinstance(value, TextId) else value
        for name, value in values.items()
    }
    return template.format(**filled)
