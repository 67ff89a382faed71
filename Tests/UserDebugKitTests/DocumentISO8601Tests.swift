import FoundationEssentials
import Testing

@testable import UserDebugKit

@Test(arguments: [
    ("2024-03-01T09:15:02Z", 1_709_284_502.0),
    ("2024-03-01T09:15:02.123Z", 1_709_284_502.123),
    ("2024-03-01t09:15:02.5z", 1_709_284_502.5),
    ("2024-03-01 09:15:02Z", 1_709_284_502.0),
    ("2024-03-01T10:15:02.123+01:00", 1_709_284_502.123),
    ("2024-03-01T04:45:02-0430", 1_709_284_502.0),
    ("2024-03-01T11:15:02+02", 1_709_284_502.0),
    ("2024-03-01T09:15:02.123456789Z", 1_709_284_502.123456789),
    ("1969-12-31T23:59:59.500Z", -0.5),
    ("2024-02-29T00:00:00Z", 1_709_164_800.0),
])
func timestampsAreReadWithZonesAndFractions(_ text: String, _ seconds: Double) throws {
    let date = try #require(ISO8601.parse(text))
    #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
}

@Test(arguments: [
    "", "2024-03-01", "2024-03-01T09:15:02", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
    "2024-03-01T24:00:00Z", "2024-03-01T09:15:02.Z", "2024-03-01T09:15:02Z trailing", "24-03-01T09:15:02Z",
    "2024-03-01T09:15:02+1", "2024-03-01T09:15:02+01:60",
])
func malformedTimestampsAreRefused(_ text: String) {
    #expect(ISO8601.parse(text) == nil)
}

@Test func formattingIsUTCWithMilliseconds() throws {
    #expect(ISO8601.format(Date(timeIntervalSince1970: 1_709_284_502.123)) == "2024-03-01T09:15:02.123Z")
    #expect(ISO8601.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    #expect(ISO8601.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    #expect(ISO8601.format(try #require(ISO8601.parse("2024-03-01T10:15:02.1+01:00"))) == "2024-03-01T09:15:02.100Z")
}
