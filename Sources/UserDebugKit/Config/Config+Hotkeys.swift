extension Config {
    /// `hotkeys`: an object from key combination (`"Super+Alt+I"`) to an action id or `menu`.
    /// A combination that does not parse, or names no keysym, is an error at its key; the same
    /// keys written twice (`Alt+Super+i` and `super+alt+I`) at the second.
    static func readHotkeys(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        guard let object = value.objectValue else {
            throw reader.error(
                "hotkeys", "expected an object like {\"Super+Alt+I\": \"copy-id\"}, got \(value.kindName)")
        }
        var bindings: [HotkeyBinding] = []
        for member in object.members {
            let key = reader.path("hotkeys", member.key)
            let hotkey: Hotkey
            switch Hotkey.parse(member.key) {
            case .success(let parsed): hotkey = parsed
            case .failure(let problem): throw reader.error(key, problem.message, atKey: true)
            }
            if let earlier = bindings.first(where: { $0.key == hotkey }) {
                throw reader.error(key, "the same keys as \"\(earlier.written)\" above", atKey: true)
            }
            guard let action = member.value.stringValue, !action.isEmpty else {
                throw reader.error(key, "expected an action id (as 'userdebug run' takes) or \"menu\"")
            }
            bindings.append(HotkeyBinding(key: hotkey, written: member.key, action: action))
        }
        config.hotkeys = bindings
    }

    /// After every section (the actions may come after the hotkeys): each binding names `menu`, a
    /// built-in action, an action of the file, or one of the backend section (known only once it
    /// is fetched, so any `backend.` id passes here).
    static func checkHotkeyActions(_ config: Config, _ reader: ConfigReader) throws(ConfigError) {
        if config.hotkeys.isEmpty { return }
        let known = Set(
            [HotkeyBinding.menuAction] + UserActionProvider.actionIDs + ResponseLogProvider.actionIDs
                + config.actions.map(\.id))
        for binding in config.hotkeys {
            let id = binding.action
            if known.contains(id) || id.hasPrefix(BackendProvider.sectionID + ".") { continue }
            throw reader.error(
                reader.path("hotkeys", binding.written),
                "unknown action \"\(id)\"; expected \"menu\", a built-in id (\(UserActionProvider.actionIDs.joined(separator: ", ")), …) or an id from \"actions\" (see 'userdebug menu')"
            )
        }
    }
}
