import Testing

@testable import UserDebugKit

/// The text proposed for `config/config.json`: every setting at its default, each explained.
/// If the loader or a default changes, this test says the shipped file must change too.
let documentedDefaultConfig = """
    // userdebug configuration: $XDG_CONFIG_HOME/userdebug/config.json
    // (or $USERDEBUG_HOME/config.json). JSON with // and # line comments.
    // Every setting is optional; a missing file means exactly these defaults.
    // Unknown keys are errors, so a misspelt setting is reported, not ignored.
    {
      // How much of the captured response log is kept; the oldest go first.
      "retention": {
        "maxResponses": 10000,      // a positive integer, or null for no limit
        "maxBytes": 268435456       // total body bytes (256 MiB), or null for no limit
      },

      // Names to redact on top of the built-in list (Authorization, Cookie, Set-Cookie,
      // X-Api-Key, fields named like token/secret/password/apiKey/privateKey, query items
      // like access_token/api_key/code/sig, URL passwords). The built-in list cannot be
      // reduced here; use --reveal to see a secret once.
      "redaction": {
        "headers": [],              // e.g. ["X-Internal-Auth"], matched case-insensitively
        "fields": [],               // whole JSON/form field names, e.g. ["ssn"] (also matches
                                    // "SSN"; case, "_" and "-" are ignored)
        "fieldPatterns": [],        // substrings of field names, e.g. ["iban"] also matches
                                    // "customerIban"
        "queryParameters": []       // URL query parameter names, e.g. ["tenant_sig"]
      },

      // Where output goes when --to is not given:
      //   "auto"      stdout when it is a pipe or a file, else the clipboard when a display
      //               answers, else stdout with a notice on stderr
      //   "stdout", "clipboard", "primary", "both" (CLIPBOARD and PRIMARY)
      "output": {
        "defaultTarget": "auto",
        "selection": "clipboard"    // the selection "auto" writes: "clipboard", "primary" or "both"
      },

      // Clipboard ownership; all values in seconds (fractions allowed).
      "clipboard": {
        "secretClearSeconds": 30,       // clear a copied secret after this (if still ours); null: never
        "lifetimeSeconds": null,        // stop serving ordinary content after this; null: until replaced
        "transferTimeoutSeconds": 10,   // give up on one stalled reader after this
        "connectTimeoutSeconds": 1      // fall back to stdout when the X server has not answered by then
      }
    }
    """

@Test func theDocumentedDefaultConfigMeansExactlyTheDefaults() throws {
    #expect(try Config.parse(Array(documentedDefaultConfig.utf8), file: "config/config.json") == .defaults)
}
