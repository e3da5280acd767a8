//! Number text exactly as Jackson writes it. Jackson hands doubles and floats to Java's
//! `Double.toString` / `Float.toString` and big decimals to `BigDecimal.toString`, so those
//! three algorithms are rebuilt here from shortest round-trip digits (ryu).
//!
//! The float rules follow the JDK 19+ specification (shortest digits that round-trip, with
//! two digits preferred over one when a two-digit decimal is closer). Older JDKs sometimes
//! print extra digits; the two agree on the overwhelming majority of values.

use crate::data::Decimal;
use num_bigint::{BigUint, Sign};

/// Java's `Double.toString`.
pub fn java_double(v: f64) -> String {
    if let Some(special) = special_text(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative())
    {
        return special;
    }
    let bits = v.abs().to_bits();
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let mut buf = ryu::Buffer::new();
    let (digits, exp10) = shortest_digits(buf.format_finite(v.abs()));
    let digits = prefer_two_digits(digits, exp10, mantissa, exp2, |text| {
        text.parse::<f64>().ok() == Some(v.abs())
    });
    layout(v < 0.0, &digits, exp10)
}

/// Java's `Float.toString`.
pub fn java_float(v: f32) -> String {
    if let Some(special) = special_text(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative())
    {
        return special;
    }
    let bits = v.abs().to_bits();
    let biased = (bits >> 23) as i32;
    let fraction = u64::from(bits & ((1u32 << 23) - 1));
    let (mantissa, exp2) = if biased == 0 {
        (fraction, -149)
    } else {
        (fraction | (1u64 << 23), biased - 150)
    };
    let mut buf = ryu::Buffer::new();
    let (digits, exp10) = shortest_digits(buf.format_finite(v.abs()));
    let digits = prefer_two_digits(digits, exp10, mantissa, exp2, |text| {
        text.parse::<f32>().ok() == Some(v.abs())
    });
    layout(v < 0.0, &digits, exp10)
}

fn special_text(nan: bool, infinite: bool, zero: bool, sign_negative: bool) -> Option<String> {
    let text = match (nan, infinite, zero, sign_negative) {
        (true, ..) => "NaN",
        (_, true, _, true) => "-Infinity",
        (_, true, _, false) => "Infinity",
        (_, _, true, true) => "-0.0",
        (_, _, true, false) => "0.0",
        _ => return None,
    };
    Some(text.to_owned())
}

/// Splits ryu's output (whatever layout it chose) into significant digits and the decimal
/// exponent of the first digit, so `digits = d1 d2 …` means `d1.d2… × 10^exp10`.
fn shortest_digits(text: &str) -> (String, i32) {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = int_part.chars().chain(frac.chars()).collect();
    // value = all × 10^(exp - frac.len())
    let mut point = exp - frac.len() as i32;
    let trimmed_start = all.trim_start_matches('0');
    let trimmed = trimmed_start.trim_end_matches('0');
    point += (trimmed_start.len() - trimmed.len()) as i32;
    let digits = trimmed.to_owned();
    let exp10 = digits.len() as i32 - 1 + point;
    (digits, exp10)
}

/// JDK 19+ never prints a single significant digit when a two-digit decimal is closer to the
/// exact binary value and still rounds back to it (so `Double.MIN_VALUE` is `4.9E-324`).
fn prefer_two_digits(
    digits: String,
    exp10: i32,
    mantissa: u64,
    exp2: i32,
    round_trips: impl Fn(&str) -> bool,
) -> String {
    if digits.len() != 1 {
        return digits;
    }
    let Some(two) = closest_two_digits(mantissa, exp2, exp10) else {
        return digits;
    };
    if two % 10 == 0 {
        return digits;
    }
    let candidate = format!("{}.{}E{}", two / 10, two % 10, exp10);
    if round_trips(&candidate) {
        two.to_string()
    } else {
        digits
    }
}

/// The two-digit integer `c` closest to `mantissa × 2^exp2 / 10^(exp10 - 1)` (ties to even).
fn closest_two_digits(mantissa: u64, exp2: i32, exp10: i32) -> Option<u32> {
    let mut num = BigUint::from(mantissa);
    let mut den = BigUint::from(1u32);
    if exp2 >= 0 {
        num <<= exp2 as usize;
    } else {
        den <<= (-exp2) as usize;
    }
    let shift = 1 - exp10;
    let ten = BigUint::from(10u32);
    if shift >= 0 {
        num *= ten.pow(shift as u32);
    } else {
        den *= ten.pow((-shift) as u32);
    }
    let q = &num / &den;
    let r = &num % &den;
    let twice_r = r << 1usize;
    let q: u32 = u32::try_from(&q).ok()?;
    let rounded = match twice_r.cmp(&den) {
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
        std::cmp::Ordering::Less => q,
    };
    (10..=99).contains(&rounded).then_some(rounded)
}

/// Java's layout: plain notation for 10^-3 <= |v| < 10^7, otherwise `d.dddE±n`; always at
/// least one digit after the point.
fn layout(negative: bool, digits: &str, exp10: i32) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-3..7).contains(&exp10) {
        if exp10 >= 0 {
            let int_len = exp10 as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp10 - 1) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exp10.to_string());
    }
    out
}

/// Java's `BigDecimal.toString`: plain unless the scale is negative or the value is tiny,
/// then scientific with an explicit `+` on positive exponents.
pub fn java_big_decimal(d: &Decimal) -> String {
    let coefficient = d.unscaled.magnitude().to_string();
    let mut out = String::with_capacity(coefficient.len() + 8);
    if d.unscaled.sign() == Sign::Minus {
        out.push('-');
    }
    let scale = i64::from(d.scale);
    let len = coefficient.len() as i64;
    let adjusted = -scale + (len - 1);
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            out.push_str(&coefficient);
        } else if len > scale {
            let split = (len - scale) as usize;
            out.push_str(&coefficient[..split]);
            out.push('.');
            out.push_str(&coefficient[split..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (scale - len) as usize));
            out.push_str(&coefficient);
        }
    } else {
        out.push_str(&coefficient[..1]);
        if len > 1 {
            out.push('.');
            out.push_str(&coefficient[1..]);
        }
        out.push('E');
        if adjusted > 0 {
            out.push('+');
        }
        out.push_str(&adjusted.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_match_java() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (12.34, "12.34"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1e-5, "1.0E-5"),
            (1234567.0, "1234567.0"),
            (9999999.0, "9999999.0"),
            (1e7, "1.0E7"),
            (1e10, "1.0E10"),
            (123456789.0, "1.23456789E8"),
            (1.0e23, "1.0E23"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (5e-324, "4.9E-324"),
            (9.223372036854776E18, "9.223372036854776E18"),
            (0.5, "0.5"),
            (3.0e-3, "0.003"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (v, want) in cases {
            assert_eq!(java_double(*v), *want, "{v:e}");
        }
    }

    #[test]
    fn floats_match_java() {
        let cases: &[(f32, &str)] = &[
            (12.34, "12.34"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (1e10, "1.0E10"),
            (f32::MAX, "3.4028235E38"),
            (f32::MIN_POSITIVE, "1.1754944E-38"),
            (1.4e-45, "1.4E-45"),
            (-2.5e-4, "-2.5E-4"),
            (16777216.0, "1.6777216E7"),
            (-0.0, "-0.0"),
        ];
        for (v, want) in cases {
            assert_eq!(java_float(*v), *want, "{v:e}");
        }
    }

    #[test]
    fn big_decimals_match_java() {
        let cases: &[(i64, i32, &str)] = &[
            (156, 2, "1.56"),
            (15600, 4, "1.5600"),
            (-5, 3, "-0.005"),
            (5, 8, "5E-8"),
            (123, 8, "0.00000123"),
            (123, 9, "1.23E-7"),
            (12, -2, "1.2E+3"),
            (0, 2, "0.00"),
            (0, -2, "0E+2"),
            (0, 8, "0E-8"),
            (7, 0, "7"),
        ];
        for (unscaled, scale, want) in cases {
            assert_eq!(java_big_decimal(&Decimal::new(*unscaled, *scale)), *want);
        }
    }

    #[test]
    fn doubles_print_like_java() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (0.000_1, "1.0E-4"),
            (1_234_567.0, "1234567.0"),
            (9_999_999.0, "9999999.0"),
            (1e7, "1.0E7"),
            (1.5e10, "1.5E10"),
            (123_456_789.0, "1.23456789E8"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (5e-324, "4.9E-324"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (v, expected) in cases {
            assert_eq!(java_double(*v), *expected, "{v:e}");
        }
    }

    #[test]
    fn floats_print_like_java() {
        let cases: &[(f32, &str)] = &[
            (1.0, "1.0"),
            (1.1, "1.1"),
            (1234.31, "1234.31"),
            (66000.0008, "66000.0"),
            (f32::MAX, "3.4028235E38"),
            (f32::from_bits(1), "1.4E-45"),
            (1e-5, "1.0E-5"),
            (f32::INFINITY, "Infinity"),
        ];
        for (v, expected) in cases {
            assert_eq!(java_float(*v), *expected, "{v:e}");
        }
    }

    #[test]
    fn big_decimals_print_like_java() {
        let cases: &[(i64, i32, &str)] = &[
            (201, 2, "2.01"),
            (-5, 3, "-0.005"),
            (12, -2, "1.2E+3"),
            (1, -1, "1E+1"),
            (0, 0, "0"),
            (0, 2, "0.00"),
            (0, -3, "0E+3"),
            (123, 0, "123"),
            (1, 6, "0.000001"),
            (1, 7, "1E-7"),
            (123, 10, "1.23E-8"),
        ];
        for (unscaled, scale, expected) in cases {
            assert_eq!(
                java_big_decimal(&Decimal::new(*unscaled, *scale)),
                *expected
            );
        }
    }
}
