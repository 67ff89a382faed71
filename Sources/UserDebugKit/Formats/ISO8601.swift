public import FoundationEssentials

/// RFC 3339 / ISO 8601 timestamps: read leniently, written in one canonical form.
///
/// FoundationEssentials has `Date.ISO8601FormatStyle`, but its parser must be told in advance
/// whether fractional seconds are present (so one style cannot read both `…:05Z` and
/// `…:05.123+02:00` from the same HAR file) and it drags the Calendar/TimeZone machinery into a
/// hotkey tool's startup. The grammar is small enough to own outright.
public enum ISO8601 {
    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM|±HH)`. `t`/`z` in lower case and a
    /// space instead of `T` are accepted (RFC 3339 §5.6 allows both). Any number of fraction digits
    /// is kept to the precision a `Date` holds. A leap second (`:60`) counts as the next second.
    /// Returns nil for anything else, including a missing zone: a zone-less time is ambiguous.
    public static func parse(_ text: String) -> Date? {
        var scanner = Scanner(bytes: Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"),
            let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2),
            scanner.take("T") || scanner.take("t") || scanner.take(" "),
            let hour = scanner.digits(2), scanner.take(":"),
            let minute = scanner.digits(2), scanner.take(":"),
            let second = scanner.digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var fraction = 0.0
        if scanner.take(".") || scanner.take(",") {
            let start = scanner.index
            while let byte = scanner.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { scanner.index += 1 }
            guard scanner.index > start else { return nil }
            fraction = Double("0." + String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)) ?? 0
        }
        var offsetSeconds = 0
        if scanner.take("Z") || scanner.take("z") {
            offsetSeconds = 0
        } else if let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            scanner.index += 1
            guard let offsetHours = scanner.digits(2), offsetHours <= 23 else { return nil }
            var offsetMinutes = 0
            if scanner.take(":") {
                guard let minutes = scanner.digits(2) else { return nil }
                offsetMinutes = minutes
            } else if let minutes = scanner.digits(2) {
                offsetMinutes = minutes
            }
            guard offsetMinutes <= 59 else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(whole) + fraction)
    }

    /// `2024-03-01T09:15:02.123Z`: always UTC, always three fraction digits, so output sorts as
    /// text and `parse(format(d))` is `d` to the millisecond. Rounds to the nearest millisecond
    /// (a plain truncation would turn `.123` read back as `.12299999…` into `.122`).
    public static func format(_ date: Date) -> String {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, milliseconds) = floorDivide(totalMilliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(milliseconds, 3) + "Z"
    }

    private static func pad(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let quotient = a >= 0 ? a / b : -((-a + b - 1) / b)
        return (quotient, a - quotient * b)
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact proleptic Gregorian arithmetic
    // without a Calendar (http://howardhinnant.github.io/date_algorithms.html).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400).quotient
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard let byte = peek, byte == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Exactly `count` ASCII digits as a number.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }
}
