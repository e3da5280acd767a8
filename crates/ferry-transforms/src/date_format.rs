//! The part of Java's `SimpleDateFormat` that `TimestampConverter` and `TimestampRouter` need,
//! always in UTC with the English (US) names and week rules (weeks start on Sunday; week 1 is the
//! one holding January 1st).
//!
//! Patterns use Java's letters (`G y Y M L w W D d F E u a H k K h m s S z Z X`), `'…'` for
//! literal text and `''` for a quote; any other ASCII letter is rejected, as Java does.
//!
//! Parsing is lenient, as Java's default: blanks may precede a field, a number runs to the next
//! non-digit (or takes exactly as many digits as the pattern letter count when the next pattern
//! element is another field), out-of-range values roll over, and text after the pattern is
//! ignored. Two-digit years (`yy`) land within 80 years before and 20 after the present.
//!
//! Left out: the Julian calendar before 1582 (dates are proleptic Gregorian, as in
//! `ferry_api::java::calendar`); when parsing, week-based fields (`w W F E u Y` as week year) do not
//! move the date (they are read and checked, and `Y` counts as the year), and the only zone names
//! understood are `UTC`, `GMT`, `Coordinated Universal Time` and `Greenwich Mean Time` besides
//! numeric offsets.

use std::time::{SystemTime, UNIX_EPOCH};

use ferry_api::java::calendar::{civil_from_millis, days_from_civil, Civil, MILLIS_PER_DAY};

const PATTERN_LETTERS: &str = "GyMdkHmsSEDFwWahKzZYuXL";

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const SHORT_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const SHORT_WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const AM_PM: [&str; 2] = ["AM", "PM"];
const ERAS: [&str; 2] = ["BC", "AD"];
const UTC_NAMES: [&str; 3] = ["Coordinated Universal Time", "Greenwich Mean Time", "UTC"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Literal(Vec<char>),
    Field { letter: char, count: usize },
}

/// A compiled `SimpleDateFormat` pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFormat {
    pattern: String,
    items: Vec<Item>,
}

impl DateFormat {
    /// Compiles `pattern`; the error is Java's `IllegalArgumentException` message.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut items = Vec::new();
        let mut literal = Vec::new();
        let mut quoted = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    literal.push('\'');
                    i += 2;
                } else {
                    quoted = !quoted;
                    i += 1;
                }
                continue;
            }
            if quoted || !c.is_ascii_alphabetic() {
                literal.push(c);
                i += 1;
                continue;
            }
            if !PATTERN_LETTERS.contains(c) {
                return Err(format!("Illegal pattern character '{c}'"));
            }
            let count = chars[i..].iter().take_while(|&&d| d == c).count();
            if c == 'X' && count > 3 {
                return Err(format!("invalid ISO 8601 format: length={count}"));
            }
            if !literal.is_empty() {
                items.push(Item::Literal(std::mem::take(&mut literal)));
            }
            items.push(Item::Field { letter: c, count });
            i += count;
        }
        if quoted {
            return Err("Unterminated quote".to_owned());
        }
        if !literal.is_empty() {
            items.push(Item::Literal(literal));
        }
        Ok(DateFormat {
            pattern: pattern.to_owned(),
            items,
        })
    }

    /// The pattern as given (Java's `toPattern()`).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Formats an instant in epoch milliseconds.
    pub fn format(&self, epoch_ms: i64) -> String {
        let c = civil_from_millis(epoch_ms);
        let mut out = String::new();
        for item in &self.items {
            match item {
                Item::Literal(chars) => out.extend(chars.iter()),
                Item::Field { letter, count } => format_field(&mut out, &c, *letter, *count),
            }
        }
        out
    }

    /// Parses text leniently into epoch milliseconds; `None` when it does not fit the pattern.
    pub fn parse(&self, text: &str) -> Option<i64> {
        let text: Vec<char> = text.chars().collect();
        let mut fields = Parsed::default();
        let mut pos = 0;
        for (index, item) in self.items.iter().enumerate() {
            match item {
                Item::Literal(chars) => {
                    for ch in chars {
                        if text.get(pos) != Some(ch) {
                            return None;
                        }
                        pos += 1;
                    }
                }
                Item::Field { letter, count } => {
                    let obey_count = matches!(self.items.get(index + 1), Some(Item::Field { .. }));
                    pos = parse_field(&text, pos, *letter, *count, obey_count, &mut fields)?;
                }
            }
        }
        fields.resolve()
    }
}

fn pad(out: &mut String, value: i64, min_digits: usize) {
    out.push_str(&format!("{value:0min_digits$}"));
}

fn era_year(year: i64) -> i64 {
    if year <= 0 {
        1 - year
    } else {
        year
    }
}

fn day_of_year(c: &Civil) -> i64 {
    days_from_civil(c.year, c.month, c.day) - days_from_civil(c.year, 1, 1) + 1
}

/// Weekday of a date, 0 = Sunday.
fn weekday_of(year: i64, month: u32, day: u32) -> i64 {
    (days_from_civil(year, month, day) + 4).rem_euclid(7)
}

/// Week of the year and the year it belongs to, with Sunday-first weeks and week 1 holding
/// January 1st.
fn week_of_year(c: &Civil) -> (i64, i64) {
    let next_jan1 = weekday_of(c.year + 1, 1, 1);
    if c.month == 12 && next_jan1 != 0 && i64::from(c.day) > 31 - next_jan1 {
        return (1, c.year + 1);
    }
    let jan1 = weekday_of(c.year, 1, 1);
    ((day_of_year(c) - 1 + jan1) / 7 + 1, c.year)
}

fn format_field(out: &mut String, c: &Civil, letter: char, count: usize) {
    let hour = i64::from(c.hour);
    match letter {
        'G' => out.push_str(ERAS[usize::from(c.year > 0)]),
        'y' | 'Y' => {
            let year = if letter == 'y' {
                era_year(c.year)
            } else {
                era_year(week_of_year(c).1)
            };
            if count == 2 {
                pad(out, year % 100, 2);
            } else {
                pad(out, year, count);
            }
        }
        'M' | 'L' => {
            let index = (c.month as usize).saturating_sub(1) % 12;
            match count {
                1 | 2 => pad(out, i64::from(c.month), count),
                3 => out.push_str(SHORT_MONTHS[index]),
                _ => out.push_str(MONTHS[index]),
            }
        }
        'd' => pad(out, i64::from(c.day), count),
        'k' => pad(out, if hour == 0 { 24 } else { hour }, count),
        'H' => pad(out, hour, count),
        'm' => pad(out, i64::from(c.minute), count),
        's' => pad(out, i64::from(c.second), count),
        'S' => pad(out, i64::from(c.millis), count),
        'E' => {
            let index = c.weekday as usize % 7;
            out.push_str(if count >= 4 {
                WEEKDAYS[index]
            } else {
                SHORT_WEEKDAYS[index]
            });
        }
        'u' => pad(
            out,
            if c.weekday == 0 { 7 } else { c.weekday.into() },
            count,
        ),
        'D' => pad(out, day_of_year(c), count),
        'F' => pad(out, (i64::from(c.day) - 1) / 7 + 1, count),
        'w' => pad(out, week_of_year(c).0, count),
        'W' => {
            let first = weekday_of(c.year, c.month, 1);
            pad(out, (i64::from(c.day) - 1 + first) / 7 + 1, count);
        }
        'a' => out.push_str(AM_PM[usize::from(hour >= 12)]),
        'h' => pad(out, if hour % 12 == 0 { 12 } else { hour % 12 }, count),
        'K' => pad(out, hour % 12, count),
        'z' => out.push_str(if count >= 4 {
            "Coordinated Universal Time"
        } else {
            "UTC"
        }),
        'Z' => out.push_str("+0000"),
        'X' => out.push('Z'),
        _ => {}
    }
}

/// The calendar fields read from the text, with the order they were set in (Java's `Calendar`
/// resolves conflicting fields by which was set last).
#[derive(Debug, Default)]
struct Parsed {
    stamp: u32,
    bc: bool,
    year: Option<i64>,
    /// The year came from two digits and might belong to the next century.
    ambiguous_year: bool,
    month0: Option<i64>,
    day_of_month: Option<(i64, u32)>,
    day_of_year: Option<(i64, u32)>,
    hour_of_day: Option<(i64, u32)>,
    hour: Option<(i64, u32)>,
    pm: Option<(bool, u32)>,
    minute: Option<i64>,
    second: Option<i64>,
    millis: Option<i64>,
    offset_ms: i64,
}

impl Parsed {
    fn next_stamp(&mut self) -> u32 {
        self.stamp += 1;
        self.stamp
    }

    fn resolve(&self) -> Option<i64> {
        let base = self.instant(0)?;
        if self.ambiguous_year && base < century_start().1 {
            return self.instant(100);
        }
        Some(base)
    }

    fn instant(&self, extra_years: i64) -> Option<i64> {
        let year = self.year.unwrap_or(1970);
        let year = if self.bc { 1 - year } else { year } + extra_years;
        let use_day_of_year = match (self.day_of_month, self.day_of_year) {
            (Some((_, dom)), Some((_, doy))) => doy > dom,
            (None, Some(_)) => true,
            _ => false,
        };
        let days = if use_day_of_year {
            let doy = self.day_of_year.map_or(1, |d| d.0);
            i128::from(days_from_civil(year, 1, 1)) + i128::from(doy) - 1
        } else {
            let month0 = self.month0.unwrap_or(0);
            let year = year.checked_add(month0.div_euclid(12))?;
            let month = u32::try_from(month0.rem_euclid(12) + 1).ok()?;
            let day = self.day_of_month.map_or(1, |d| d.0);
            i128::from(days_from_civil(year, month, 1)) + i128::from(day) - 1
        };
        // Java takes HOUR_OF_DAY unless HOUR and AM_PM were both set later; HOUR or AM_PM alone
        // only counts when HOUR_OF_DAY is unset.
        let hod_stamp = self.hour_of_day.map_or(0, |h| h.1);
        let hour_stamp = match (self.hour, self.pm) {
            (Some((_, a)), Some((_, b))) => a.max(b),
            _ => 0,
        };
        let hour = if hod_stamp > 0 && hod_stamp >= hour_stamp {
            self.hour_of_day.map_or(0, |h| h.0)
        } else {
            self.hour.map_or(0, |h| h.0) + if self.pm.is_some_and(|p| p.0) { 12 } else { 0 }
        };
        let ms = days * i128::from(MILLIS_PER_DAY)
            + i128::from(hour) * 3_600_000
            + i128::from(self.minute.unwrap_or(0)) * 60_000
            + i128::from(self.second.unwrap_or(0)) * 1000
            + i128::from(self.millis.unwrap_or(0))
            - i128::from(self.offset_ms);
        i64::try_from(ms).ok()
    }
}

/// The start of Java's two-digit-year window (80 years ago): its year and epoch milliseconds.
fn century_start() -> (i64, i64) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let c = civil_from_millis(now);
    let year = c.year - 80;
    let day = if c.month == 2 && c.day == 29 {
        28
    } else {
        c.day
    };
    let days = days_from_civil(year, c.month, day);
    let ms = days * MILLIS_PER_DAY + now.rem_euclid(MILLIS_PER_DAY);
    (year, ms)
}

/// A number as Java's `DecimalFormat` reads one for a date field: an optional minus sign and
/// digits, narrowed to an int. Returns the value and the position after it.
fn parse_number(text: &[char], start: usize, limit: usize) -> Option<(i64, usize)> {
    let mut pos = start;
    let negative = text.get(pos) == Some(&'-') && pos < limit;
    if negative {
        pos += 1;
    }
    let digits_start = pos;
    let mut value: i64 = 0;
    let mut overflow = false;
    while pos < limit && text[pos].is_ascii_digit() {
        let digit = i64::from(text[pos] as u8 - b'0');
        match value.checked_mul(10).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        pos += 1;
    }
    if pos == digits_start {
        return None;
    }
    let value = if negative { -value } else { value };
    let narrowed = if overflow {
        if negative {
            i64::from(i32::MIN)
        } else {
            i64::from(i32::MAX)
        }
    } else {
        i64::from(value as i32)
    };
    Some((narrowed, pos))
}

/// The longest of `names` found at `start`, ignoring case: its index and the position after it.
fn match_name(text: &[char], start: usize, names: &[&str]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (index, name) in names.iter().enumerate() {
        let len = name.chars().count();
        let Some(candidate) = text.get(start..start + len) else {
            continue;
        };
        let same = candidate
            .iter()
            .zip(name.chars())
            .all(|(a, b)| a.to_lowercase().eq(b.to_lowercase()));
        if same && best.is_none_or(|(_, l)| len > l) {
            best = Some((index, len));
        }
    }
    best.map(|(index, len)| (index, start + len))
}

fn is_digit(c: Option<&char>) -> Option<i64> {
    c.filter(|c| c.is_ascii_digit())
        .map(|c| i64::from(*c as u8 - b'0'))
}

/// Java's `subParseNumericZone`: `hh[[:]mm]` after a sign. `count` is the `X` letter count (0 for
/// `z`/`Z`); `colon` says whether a colon separates hours and minutes.
fn parse_numeric_zone(
    text: &[char],
    start: usize,
    negative: bool,
    count: usize,
    colon: bool,
) -> Option<(i64, usize)> {
    let mut pos = start;
    let mut hours = is_digit(text.get(pos))?;
    pos += 1;
    match is_digit(text.get(pos)) {
        Some(d) => {
            hours = hours * 10 + d;
            pos += 1;
        }
        None => {
            if count > 0 || !colon || pos >= text.len() {
                return None;
            }
        }
    }
    if hours > 23 {
        return None;
    }
    let mut minutes = 0;
    if count != 1 {
        if colon {
            if text.get(pos) != Some(&':') {
                return None;
            }
            pos += 1;
        }
        let tens = is_digit(text.get(pos))?;
        let ones = is_digit(text.get(pos + 1))?;
        pos += 2;
        minutes = tens * 10 + ones;
        if minutes > 59 {
            return None;
        }
    }
    let offset = (hours * 60 + minutes) * 60_000;
    Some((if negative { -offset } else { offset }, pos))
}

fn parse_field(
    text: &[char],
    start: usize,
    letter: char,
    count: usize,
    obey_count: bool,
    fields: &mut Parsed,
) -> Option<usize> {
    let mut pos = start;
    while matches!(text.get(pos), Some(' ' | '\t')) {
        pos += 1;
    }
    if pos >= text.len() {
        return None;
    }
    let start = pos;
    let numeric = match letter {
        'M' | 'L' => count <= 2,
        'G' | 'E' | 'a' | 'z' | 'Z' | 'X' => false,
        _ => true,
    };
    if !numeric {
        return parse_text_field(text, start, letter, count, fields);
    }
    let limit = if obey_count {
        if start + count > text.len() {
            return None;
        }
        start + count
    } else {
        text.len()
    };
    let (mut value, end) = parse_number(text, start, limit)?;
    let stamp = fields.next_stamp();
    match letter {
        'y' | 'Y' => {
            if count <= 2
                && end - start == 2
                && text[start].is_ascii_digit()
                && text[start + 1].is_ascii_digit()
            {
                let (century_year, _) = century_start();
                let two_digit = century_year.rem_euclid(100);
                fields.ambiguous_year = value == two_digit;
                value +=
                    century_year.div_euclid(100) * 100 + if value < two_digit { 100 } else { 0 };
            }
            fields.year = Some(value);
        }
        'M' | 'L' => fields.month0 = Some(value - 1),
        'd' => fields.day_of_month = Some((value, stamp)),
        'D' => fields.day_of_year = Some((value, stamp)),
        'k' => fields.hour_of_day = Some((if value == 24 { 0 } else { value }, stamp)),
        'H' => fields.hour_of_day = Some((value, stamp)),
        'h' => fields.hour = Some((if value == 12 { 0 } else { value }, stamp)),
        'K' => fields.hour = Some((value, stamp)),
        'm' => fields.minute = Some(value),
        's' => fields.second = Some(value),
        'S' => fields.millis = Some(value),
        // Week-based fields (w, W, F, u) are read but do not move the date.
        _ => {}
    }
    Some(end)
}

fn parse_text_field(
    text: &[char],
    start: usize,
    letter: char,
    count: usize,
    fields: &mut Parsed,
) -> Option<usize> {
    match letter {
        'G' => {
            let (index, end) = match_name(text, start, &ERAS)?;
            fields.bc = index == 0;
            Some(end)
        }
        'M' | 'L' => {
            let (index, end) = match_name(text, start, &MONTHS)
                .or_else(|| match_name(text, start, &SHORT_MONTHS))?;
            fields.month0 = Some(index as i64);
            Some(end)
        }
        'E' => {
            let (_, end) = match_name(text, start, &WEEKDAYS)
                .or_else(|| match_name(text, start, &SHORT_WEEKDAYS))?;
            Some(end)
        }
        'a' => {
            let (index, end) = match_name(text, start, &AM_PM)?;
            let stamp = fields.next_stamp();
            fields.pm = Some((index == 1, stamp));
            Some(end)
        }
        'X' => {
            let c = *text.get(start)?;
            if c == 'Z' {
                fields.offset_ms = 0;
                return Some(start + 1);
            }
            if c != '+' && c != '-' {
                return None;
            }
            let (offset, end) = parse_numeric_zone(text, start + 1, c == '-', count, count == 3)?;
            fields.offset_ms = offset;
            Some(end)
        }
        _ => {
            // 'z' and 'Z' read the same forms: an RFC 822 offset, GMT with an optional offset,
            // or a zone name.
            let c = *text.get(start)?;
            if c == '+' || c == '-' {
                let (offset, end) = parse_numeric_zone(text, start + 1, c == '-', 0, false)?;
                fields.offset_ms = offset;
                return Some(end);
            }
            if let Some((_, end)) = match_name(text, start, &["GMT"]) {
                match text.get(end) {
                    Some(&sign @ ('+' | '-')) => {
                        let (offset, end) =
                            parse_numeric_zone(text, end + 1, sign == '-', 0, true)?;
                        fields.offset_ms = offset;
                        return Some(end);
                    }
                    _ => {
                        fields.offset_ms = 0;
                        return Some(end);
                    }
                }
            }
            let (_, end) = match_name(text, start, &UTC_NAMES)?;
            fields.offset_ms = 0;
            Some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = MILLIS_PER_DAY;

    fn fmt(pattern: &str, ms: i64) -> String {
        DateFormat::new(pattern).unwrap().format(ms)
    }

    fn parse(pattern: &str, text: &str) -> Option<i64> {
        DateFormat::new(pattern).unwrap().parse(text)
    }

    #[test]
    fn compiling_rejects_what_java_rejects() {
        assert_eq!(
            DateFormat::new("bad-format").unwrap_err(),
            "Illegal pattern character 'b'"
        );
        assert_eq!(DateFormat::new("yyyy'T").unwrap_err(), "Unterminated quote");
        assert_eq!(
            DateFormat::new("XXXX").unwrap_err(),
            "invalid ISO 8601 format: length=4"
        );
        assert!(DateFormat::new("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").is_ok());
        assert_eq!(
            DateFormat::new("h 'o''clock'").unwrap().pattern(),
            "h 'o''clock'"
        );
    }

    #[test]
    fn formats_common_patterns_in_utc() {
        // 2017-01-03T06:30:01.864Z, a Tuesday.
        let ts = 1_483_425_001_864;
        assert_eq!(fmt("yyyyMMdd", ts), "20170103");
        assert_eq!(
            fmt("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", ts),
            "2017-01-03T06:30:01.864Z"
        );
        assert_eq!(fmt("yy/M/d H:m:s.S", ts), "17/1/3 6:30:1.864");
        assert_eq!(fmt("EEE, dd MMM yyyy", ts), "Tue, 03 Jan 2017");
        assert_eq!(fmt("EEEE MMMM", ts), "Tuesday January");
        assert_eq!(fmt("hh:mm a K k", ts), "06:30 AM 6 6");
        assert_eq!(
            fmt("z zzzz Z X XXX G", ts),
            "UTC Coordinated Universal Time +0000 Z Z AD"
        );
        assert_eq!(fmt("D u F w W", ts), "3 2 1 1 1");
        assert_eq!(fmt("'o''clock' ''", ts), "o'clock '");
        assert_eq!(fmt("SSSS", 5), "0005");
        assert_eq!(fmt("k h", 0), "24 12");
        assert_eq!(
            fmt("yyyy MM dd HH mm ss SSS z", DAY + 1234),
            "1970 01 02 00 00 01 234 UTC"
        );
    }

    #[test]
    fn week_fields_follow_us_rules() {
        // 2016-12-31 is a Saturday; 2017-01-01 a Sunday, so the last week of 2016 is week 53.
        let dec31 = days_from_civil(2016, 12, 31) * DAY;
        assert_eq!(fmt("w YYYY", dec31), "53 2016");
        // 2019-12-29 (Sunday) shares its week with 2020-01-01: week 1 of week-year 2020.
        let dec29 = days_from_civil(2019, 12, 29) * DAY;
        assert_eq!(fmt("w YYYY yyyy", dec29), "1 2020 2019");
    }

    #[test]
    fn parses_what_it_formats() {
        let ts = 1_483_425_001_864;
        for pattern in [
            "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'",
            "yyyyMMddHHmmssSSS",
            "EEE, dd MMM yyyy HH:mm:ss.SSS z",
            "yyyy MM dd hh mm ss SSS a",
            "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
            "MMMM d, yyyy G kk:mm:ss.SSS Z",
        ] {
            let text = fmt(pattern, ts);
            assert_eq!(parse(pattern, &text), Some(ts), "{pattern}: {text}");
        }
        assert_eq!(
            parse("yyyy MM dd HH mm ss SSS z", "1970 01 02 00 00 01 234 UTC"),
            Some(DAY + 1234)
        );
    }

    #[test]
    fn parsing_is_lenient_like_java() {
        let jan1 = days_from_civil(2020, 1, 1) * DAY;
        assert_eq!(parse("yyyy-MM-dd", "2019-13-01"), Some(jan1));
        assert_eq!(parse("yyyy-MM-dd", "2019-12-32"), Some(jan1));
        assert_eq!(parse("yyyy-MM-dd", "2020-1-1 and more"), Some(jan1));
        assert_eq!(parse("yyyy-MM-dd", "  2020-01-  1"), Some(jan1));
        assert_eq!(parse("yyyy-MM-dd", "2020/01/01"), None);
        assert_eq!(parse("yyyy-MM-dd", "2020-01"), None);
        assert_eq!(parse("yyyy", "abc"), None);
        // Milliseconds are a plain number: 1234 of them is 1.234 s.
        assert_eq!(parse("HH:mm:ss.SSS", "00:00:00.1234"), Some(1234));
        // Letters next to each other take exactly their count of digits.
        assert_eq!(parse("yyyyMMdd", "20200101"), Some(jan1));
        assert_eq!(parse("yyyyMMdd", "2020011"), Some(jan1));
        assert_eq!(parse("HHmm", "1"), None);
        assert_eq!(parse("D yyyy", "32 1970"), Some(31 * DAY));
        assert_eq!(parse("yyyy DDD", "1970 032"), Some(31 * DAY));
        assert_eq!(parse("MMM d yyyy", "february 1 1970"), Some(31 * DAY));
        assert_eq!(parse("MMMM d yyyy", "Feb 1 1970"), Some(31 * DAY));
        assert_eq!(
            parse("yyyy G", "1 BC"),
            Some(days_from_civil(0, 1, 1) * DAY)
        );
    }

    #[test]
    fn hours_and_zones() {
        assert_eq!(parse("h a", "12 AM"), Some(0));
        assert_eq!(parse("h a", "12 PM"), Some(12 * 3_600_000));
        assert_eq!(parse("kk", "24"), Some(0));
        assert_eq!(parse("HH z", "01 GMT"), Some(3_600_000));
        assert_eq!(parse("HH z", "01 GMT+01:00"), Some(0));
        assert_eq!(parse("HH z", "01 GMT+01"), None);
        assert_eq!(parse("HH Z", "01 -0130"), Some(9_000_000));
        assert_eq!(parse("HH Z", "01 +01"), None);
        assert_eq!(parse("HH X", "01 +01"), Some(0));
        assert_eq!(parse("HH XX", "01 +0100"), Some(0));
        assert_eq!(parse("HH XXX", "01 +01:00"), Some(0));
        assert_eq!(parse("HH XXX", "01 Z"), Some(3_600_000));
        assert_eq!(parse("HH z", "01 utc"), Some(3_600_000));
        assert_eq!(parse("HH z", "01 PST"), None);
    }

    #[test]
    fn two_digit_years_fall_in_the_java_window() {
        let (start_year, _) = century_start();
        let this_year = start_year + 80;
        let yy = this_year.rem_euclid(100);
        let parsed = parse("yy", &format!("{yy:02}")).unwrap();
        assert_eq!(civil_from_millis(parsed).year, this_year);
        // Three letters keep the number as it is.
        assert_eq!(civil_from_millis(parse("yyy", "19").unwrap()).year, 19);
        // A year written with more digits is not adjusted either.
        assert_eq!(civil_from_millis(parse("yy", "2019").unwrap()).year, 2019);
    }
}
