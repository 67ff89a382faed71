import Testing
import UserDebugKit

@Test func parserKeepsNumberLiteralsAndMemberOrder() throws {
    let value = try JSONParser().parse(#"{"b": 1.50, "a": 12345678901234567890}"#)
    #expect(JSONWriter().string(value) == #"{"b":1.50,"a":12345678901234567890}"#)
}
