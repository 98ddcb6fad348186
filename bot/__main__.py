from bot.runtime.main import main

raise SystemExit(main())
