//! Calendar arithmetic for Connect's Date, Time and Timestamp values.
//!
//! Java formats and parses these with the JVM's default time zone; Ferry always uses UTC, which is
//! what Connect workers normally run with. The proleptic Gregorian calendar is used throughout
//! (Java switches to the Julian calendar before October 1582).

pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// A UTC civil date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
    /// 0 = Sunday.
    pub weekday: u32,
}

/// Days since 1970-01-01 of a Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date and time of an instant in epoch milliseconds.
pub fn civil_from_millis(epoch_ms: i64) -> Civil {
    let days = epoch_ms.div_euclid(MILLIS_PER_DAY);
    let ms = epoch_ms.rem_euclid(MILLIS_PER_DAY);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let narrow = |v: i64| u32::try_from(v).unwrap_or(0);
    Civil {
        year,
        month: narrow(month),
        day: narrow(day),
        hour: narrow(ms / 3_600_000),
        minute: narrow(ms / 60_000 % 60),
        second: narrow(ms / 1000 % 60),
        millis: narrow(ms % 1000),
        weekday: narrow((days + 4).rem_euclid(7)),
    }
}

/// The year as `SimpleDateFormat` prints `yyyy`: the era year (no sign), at least four digits.
fn era_year(year: i64) -> String {
    let y = if year <= 0 { 1 - year } else { year };
    format!("{y:04}")
}

/// `HH:mm:ss.SSS'Z'`.
pub fn iso_time(epoch_ms: i64) -> String {
    let c = civil_from_millis(epoch_ms);
    format!(
        "{:02}:{:02}:{:02}.{:03}Z",
        c.hour, c.minute, c.second, c.millis
    )
}

/// `yyyy-MM-dd`.
pub fn iso_date(epoch_ms: i64) -> String {
    let c = civil_from_millis(epoch_ms);
    format!("{}-{:02}-{:02}", era_year(c.year), c.month, c.day)
}

/// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
pub fn iso_timestamp(epoch_ms: i64) -> String {
    format!("{}T{}", iso_date(epoch_ms), iso_time(epoch_ms))
}

/// `java.util.Date.toString()` in UTC, e.g. `Thu Jan 01 00:00:00 UTC 1970`.
pub fn java_date_string(epoch_ms: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let c = civil_from_millis(epoch_ms);
    let weekday = DAYS[usize::try_from(c.weekday).unwrap_or(0) % 7];
    let month = MONTHS[usize::try_from(c.month).unwrap_or(1).saturating_sub(1) % 12];
    format!(
        "{weekday} {month} {:02} {:02}:{:02}:{:02} UTC {}",
        c.day, c.hour, c.minute, c.second, c.year
    )
}

/// One element of a date pattern: a numeric field or a literal character.
#[derive(Debug, Clone, Copy)]
enum Piece {
    Num,
    Lit(char),
}

use Piece::{Lit, Num};

const DATE_PATTERN: &[Piece] = &[Num, Lit('-'), Num, Lit('-'), Num];
const TIME_PATTERN: &[Piece] = &[Num, Lit(':'), Num, Lit(':'), Num, Lit('.'), Num, Lit('Z')];

/// Reads the numeric fields of `pattern` from the start of `text` as lenient `SimpleDateFormat`
/// does: blanks may precede a number, a number is every digit up to the next literal, and text
/// after the pattern is ignored. Signed numbers are not accepted.
fn lenient_fields(text: &str, pattern: &[Piece]) -> Option<Vec<i64>> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut fields = Vec::new();
    for piece in pattern {
        match *piece {
            Lit(c) => {
                if bytes.get(pos) != Some(&(c as u8)) {
                    return None;
                }
                pos += 1;
            }
            Num => {
                while matches!(bytes.get(pos), Some(b' ' | b'\t')) {
                    pos += 1;
                }
                let start = pos;
                while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                    pos += 1;
                }
                // Java reads the field as a long, then narrows it to an int.
                let n: i64 = text.get(start..pos)?.parse().ok()?;
                fields.push(i64::from(n as i32));
            }
        }
    }
    Some(fields)
}

/// Epoch days of a lenient date: months and days outside their range roll over.
fn lenient_days(year: i64, month: i64, day: i64) -> Option<i64> {
    let month0 = month.checked_sub(1)?;
    let year = year.checked_add(month0.div_euclid(12))?;
    let month = u32::try_from(month0.rem_euclid(12) + 1).ok()?;
    if year.abs() > 1_000_000_000 {
        return None;
    }
    days_from_civil(year, month, 1).checked_add(day.checked_sub(1)?)
}

fn lenient_time_ms(fields: &[i64]) -> Option<i64> {
    let [h, m, s, ms] = fields else { return None };
    h.checked_mul(3_600_000)?
        .checked_add(m.checked_mul(60_000)?)?
        .checked_add(s.checked_mul(1000)?)?
        .checked_add(*ms)
}

/// Parses `yyyy-MM-dd` leniently; the result is epoch milliseconds.
pub fn parse_iso_date(text: &str) -> Option<i64> {
    let f = lenient_fields(text, DATE_PATTERN)?;
    lenient_days(f[0], f[1], f[2])?.checked_mul(MILLIS_PER_DAY)
}

/// Parses `HH:mm:ss.SSS'Z'` leniently; the result is milliseconds from the epoch.
pub fn parse_iso_time(text: &str) -> Option<i64> {
    lenient_time_ms(&lenient_fields(text, TIME_PATTERN)?)
}

/// Parses `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` leniently; the result is epoch milliseconds.
pub fn parse_iso_timestamp(text: &str) -> Option<i64> {
    let pattern: Vec<Piece> = DATE_PATTERN
        .iter()
        .copied()
        .chain([Lit('T')])
        .chain(TIME_PATTERN.iter().copied())
        .collect();
    let f = lenient_fields(text, &pattern)?;
    let days = lenient_days(f[0], f[1], f[2])?;
    days.checked_mul(MILLIS_PER_DAY)?
        .checked_add(lenient_time_ms(&f[3..])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2019, 8, 23), 18_131);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        let c = civil_from_millis(18_131 * MILLIS_PER_DAY + 52_494_346);
        assert_eq!((c.year, c.month, c.day), (2019, 8, 23));
        assert_eq!((c.hour, c.minute, c.second, c.millis), (14, 34, 54, 346));
        assert_eq!(c.weekday, 5);
    }

    #[test]
    fn iso_forms() {
        let ts = 18_131 * MILLIS_PER_DAY + 52_494_346;
        assert_eq!(iso_timestamp(ts), "2019-08-23T14:34:54.346Z");
        assert_eq!(iso_date(ts), "2019-08-23");
        assert_eq!(iso_time(ts), "14:34:54.346Z");
        assert_eq!(iso_time(-1), "23:59:59.999Z");
        assert_eq!(parse_iso_timestamp("2019-08-23T14:34:54.346Z"), Some(ts));
        assert_eq!(parse_iso_date("2019-08-23"), Some(18_131 * MILLIS_PER_DAY));
        assert_eq!(parse_iso_time("14:34:54.346Z"), Some(52_494_346));
    }

    #[test]
    fn lenient_parsing_rolls_fields_over() {
        assert_eq!(parse_iso_date("2019-13-01"), parse_iso_date("2020-01-01"));
        assert_eq!(parse_iso_date("2019-02-30"), parse_iso_date("2019-03-02"));
        assert_eq!(parse_iso_time("24:00:00.000Z"), Some(MILLIS_PER_DAY));
        assert_eq!(parse_iso_date("2019- 8-23"), parse_iso_date("2019-08-23"));
        assert_eq!(parse_iso_date("1234567890"), None);
        assert_eq!(
            parse_iso_date("2019-08-2x"),
            Some(days_from_civil(2019, 8, 2) * MILLIS_PER_DAY)
        );
        assert_eq!(parse_iso_time("14:34:54.346X"), None);
    }

    #[test]
    fn java_date_to_string() {
        assert_eq!(java_date_string(0), "Thu Jan 01 00:00:00 UTC 1970");
        assert_eq!(
            java_date_string(18_131 * MILLIS_PER_DAY + 52_494_346),
            "Fri Aug 23 14:34:54 UTC 2019"
        );
    }
}
