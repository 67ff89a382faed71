import Testing

@testable import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Config actions at run time: templates filled in, commands run from argv without a shell.
@Suite struct ActionCommandTests {
    static let hostile = "Zoë \"q\" 'single' $(touch /tmp/userdebug-pwned) `id` ; rm -rf / && echo \\ *"

    func run(_ action: ConfigAction, user name: String = "Zoë", reveal: Bool = false) throws -> Payload {
        var session = ActionFixtures.session
        session.user.name = name
        let context = ActionContext.inMemory(
            session: session, responses: ActionFixtures.responses, reveal: reveal,
            environment: ["PATH": "/usr/bin:/bin"])
        let menu = try MenuSession.request(providers: [ConfigActionProvider(actions: [action])], context: { context })
        try menu.display()
        var out: [Payload] = []
        try menu.perform(action.id) { out.append($0) }
        return try #require(out.first)
    }

    func text(_ payload: Payload) -> String { String(decoding: payload.bytes, as: UTF8.self) }

    @Test func aTemplateFillsInUserSessionAndLastResponseFields() throws {
        let template = try ActionTemplate(
            "{{user.identifier}}|{{user.name}}|{{user.email}}|{{session.name}}|{{session.baseURL}}|"
                + "{{session.environment}}|{{response.id}}|{{response.status}}|{{response.method}}|{{response.url}}|{{response.body}}"
        )
        let payload = try run(ConfigAction(id: "all", title: "All", template: template))
        #expect(
            text(payload)
                == "usr_1|Zoë|zoe@example.com|staging|https://api.example.com|staging|2|404|GET|https://api.example.com/orders/9|{\"error\":\"not found\"}"
        )
        #expect(!payload.isSecret)
    }

    @Test func theUrlFilterPercentEncodes() throws {
        let payload = try run(
            ConfigAction(id: "u", title: "U", template: try ActionTemplate("/users/{{ user.name | url }}")),
            user: "a b/c?é")
        #expect(text(payload) == "/users/a%20b%2Fc%3F%C3%A9")
    }

    @Test func aSecretTemplateIsMarkedSecret() throws {
        let payload = try run(
            ConfigAction(id: "h", title: "H", template: try ActionTemplate("Bearer {{session.token}}"), isSecret: true))
        #expect(payload == Payload(text: "Bearer \(ActionFixtures.token)", isSecret: true))
    }

    @Test func theLastResponseBodyIsRedactedUnlessRevealed() throws {
        var action = ConfigAction(id: "b", title: "B", template: try ActionTemplate("{{response.body}}"))
        let responses = [ActionFixtures.responses[0]]
        let context = ActionContext.inMemory(session: ActionFixtures.session, responses: responses)
        let shown = try ConfigActionProvider.produce(action, in: context)
        #expect(!text(shown).contains(ActionFixtures.token))
        action.isSecret = true
        let revealed = try ConfigActionProvider.produce(
            action, in: .inMemory(session: ActionFixtures.session, responses: responses, reveal: true))
        #expect(text(revealed).contains(ActionFixtures.token))
    }

    @Test func everyArgumentArrivesVerbatimAsOneArgument() throws {
        let command = try ["printf", "<%s>\\n", "{{user.name}}", "two words", "$HOME"].map { try ActionTemplate($0) }
        let payload = try run(ConfigAction(id: "argv", title: "Argv", command: command), user: Self.hostile)
        #expect(text(payload) == "<\(Self.hostile)>\n<two words>\n<$HOME>\n")
        #expect(!pathExists("/tmp/userdebug-pwned"))
    }

    @Test func theTemplateIsTheCommandsStdin() throws {
        let action = ConfigAction(
            id: "cat", title: "Cat", template: try ActionTemplate("token={{session.token}}"),
            command: [try ActionTemplate("cat")], isSecret: true)
        let payload = try run(action)
        #expect(payload == Payload(text: "token=\(ActionFixtures.token)", isSecret: true))
    }

    @Test func aFailingCommandFailsTheActionWithItsStatusAndStderr() throws {
        let action = ConfigAction(
            id: "f", title: "F", command: try ["sh", "-c", "echo nope >&2; exit 3"].map { try ActionTemplate($0) })
        #expect(throws: ActionError.commandFailed(command: "sh", status: 3, stderr: "nope")) { try run(action) }
    }

    @Test func aCommandEndedByASignalFailsTheActionNamingTheSignal() throws {
        let action = ConfigAction(
            id: "k", title: "K",
            command: try ["sh", "-c", "echo dying >&2; kill -KILL $$"].map { try ActionTemplate($0) })
        let killed = ActionError.commandKilled(command: "sh", signal: SIGKILL, stderr: "dying")
        #expect(throws: killed) { try run(action) }
        #expect(killed.description == "'sh' failed (killed by signal 9): dying")
        #expect(
            ActionError.commandFailed(command: "sh", status: 137, stderr: "").description
                == "'sh' failed (exit status 137)")
    }

    @Test func aMissingProgramIsNotStarted() throws {
        let action = ConfigAction(id: "m", title: "M", command: [try ActionTemplate("userdebug-no-such-program")])
        do {
            _ = try run(action)
            Issue.record("a missing program must fail")
        } catch ActionError.commandNotStarted(let command, _) {
            #expect(command == "userdebug-no-such-program")
        }
    }

    @Test func aCommandPastItsTimeoutIsKilledWithWhatItStarted() throws {
        // The shell's child keeps stdout open: only killing the process group ends the wait.
        let action = ConfigAction(
            id: "t", title: "T", command: try ["sh", "-c", "sleep 60 & sleep 60"].map { try ActionTemplate($0) },
            timeoutSeconds: 0.3)
        #expect(throws: ActionError.commandTimedOut(command: "sh", seconds: 0.3)) { try run(action) }
    }

    @Test func aMissingFieldIsReportedNotEmpty() throws {
        let action = ConfigAction(id: "x", title: "X", template: try ActionTemplate("{{user.nickname}}"))
        #expect(throws: ActionError.missing("{{user.nickname}}: session 'staging' has none")) { try run(action) }
    }
}

/// Whether a path exists (no Foundation in these tests' module for one call).
func pathExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}
