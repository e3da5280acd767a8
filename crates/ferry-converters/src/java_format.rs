//! Java's text forms for numbers and the class names Java puts in error messages.
//!
//! Both converters that write text (`StringConverter` and `SimpleHeaderConverter`) must print
//! numbers exactly as the JVM does, or a Java consumer would read different strings.

use ferry_api::data::{Decimal, Value};

/// `Double.toString`: the shortest digits that read back to the same double (the JDK 19+ rule,
/// which also prefers two digits over one when they are closer), in plain notation for
/// magnitudes in [10^-3, 10^7) and `d.dddE±n` otherwise.
pub fn java_double(v: f64) -> String {
    if !v.is_finite() {
        return non_finite(v.is_nan(), v > 0.0);
    }
    let mut buf = ryu::Buffer::new();
    let mut digits = Digits::from_shortest(buf.format_finite(v.abs()));
    if digits.digits.len() == 1 && v != 0.0 {
        let two = format!("{:.1e}", v.abs());
        if two.parse::<f64>() == Ok(v.abs()) {
            digits = Digits::from_shortest(&two);
        }
    }
    digits.render(v.is_sign_negative(), v.abs() >= 1e-3 && v.abs() < 1e7)
}

/// `Float.toString`, by the same rules at float precision.
pub fn java_float(v: f32) -> String {
    if !v.is_finite() {
        return non_finite(v.is_nan(), v > 0.0);
    }
    let mut buf = ryu::Buffer::new();
    let mut digits = Digits::from_shortest(buf.format_finite(v.abs()));
    if digits.digits.len() == 1 && v != 0.0 {
        let two = format!("{:.1e}", v.abs());
        if two.parse::<f32>() == Ok(v.abs()) {
            digits = Digits::from_shortest(&two);
        }
    }
    digits.render(v.is_sign_negative(), v.abs() >= 1e-3 && v.abs() < 1e7)
}

fn non_finite(nan: bool, positive: bool) -> String {
    match (nan, positive) {
        (true, _) => "NaN".to_owned(),
        (false, true) => "Infinity".to_owned(),
        (false, false) => "-Infinity".to_owned(),
    }
}

/// A positive decimal `d1.d2d3… × 10^exp` with no leading or trailing zero digits (zero is `"0"`).
struct Digits {
    digits: String,
    exp: i32,
}

impl Digits {
    /// Reads ryu's or Rust's output (`123.45`, `1e-7`, `4.9e-324`, `0.0`).
    fn from_shortest(text: &str) -> Digits {
        let (mantissa, exp) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
            None => (text, 0),
        };
        let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all = format!("{int_part}{frac}");
        let leading = all.len() - all.trim_start_matches('0').len();
        let trimmed = all.trim_matches('0');
        if trimmed.is_empty() {
            return Digits {
                digits: "0".to_owned(),
                exp: 0,
            };
        }
        let int_len = i32::try_from(int_part.len()).unwrap_or(0);
        let leading = i32::try_from(leading).unwrap_or(0);
        Digits {
            digits: trimmed.to_owned(),
            exp: exp + int_len - leading - 1,
        }
    }

    fn render(&self, negative: bool, plain: bool) -> String {
        let mut out = String::new();
        if negative {
            out.push('-');
        }
        let d = &self.digits;
        if self.digits == "0" {
            out.push_str("0.0");
        } else if plain && self.exp >= 0 {
            let int_len = usize::try_from(self.exp).unwrap_or(0) + 1;
            if d.len() <= int_len {
                out.push_str(d);
                out.push_str(&"0".repeat(int_len - d.len()));
                out.push_str(".0");
            } else {
                out.push_str(&d[..int_len]);
                out.push('.');
                out.push_str(&d[int_len..]);
            }
        } else if plain {
            out.push_str("0.");
            out.push_str(&"0".repeat(usize::try_from(-self.exp - 1).unwrap_or(0)));
            out.push_str(d);
        } else {
            out.push_str(&d[..1]);
            out.push('.');
            out.push_str(if d.len() > 1 { &d[1..] } else { "0" });
            out.push('E');
            out.push_str(&self.exp.to_string());
        }
        out
    }
}

/// `BigDecimal.toString`: plain unless the scale is negative or the number is smaller than
/// 10^-6, then scientific with an explicit exponent sign (`1.2E+3`).
pub fn java_big_decimal(d: &Decimal) -> String {
    let text = d.unscaled.to_string();
    let (sign, coeff) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let len = i64::try_from(coeff.len()).unwrap_or(i64::MAX);
    let scale = i64::from(d.scale);
    let adjusted = -scale + (len - 1);
    let body = if scale >= 0 && adjusted >= -6 {
        let point = usize::try_from(len - scale).ok();
        match point {
            _ if scale == 0 => coeff.to_owned(),
            Some(p) if p > 0 => format!("{}.{}", &coeff[..p], &coeff[p..]),
            _ => {
                let zeros = usize::try_from(scale - len).unwrap_or(0);
                format!("0.{}{coeff}", "0".repeat(zeros))
            }
        }
    } else {
        let rest = if coeff.len() > 1 {
            format!(".{}", &coeff[1..])
        } else {
            String::new()
        };
        let exp_sign = if adjusted >= 0 { "+" } else { "-" };
        format!("{}{rest}E{exp_sign}{}", &coeff[..1], adjusted.abs())
    };
    format!("{sign}{body}")
}

/// `value.getClass().getName()` for the Java object a Connect value would be.
pub fn java_class_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "java.lang.Boolean",
        Value::Int8(_) => "java.lang.Byte",
        Value::Int16(_) => "java.lang.Short",
        Value::Int32(_) => "java.lang.Integer",
        Value::Int64(_) => "java.lang.Long",
        Value::Float32(_) => "java.lang.Float",
        Value::Float64(_) => "java.lang.Double",
        Value::String(_) => "java.lang.String",
        Value::Bytes(_) => "[B",
        Value::Array(_) => "java.util.ArrayList",
        Value::Map(_) => "java.util.HashMap",
        Value::Struct(_) => "org.apache.kafka.connect.data.Struct",
        Value::Decimal(_) => "java.math.BigDecimal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
