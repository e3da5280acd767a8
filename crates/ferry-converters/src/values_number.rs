//! Typing a number token as Java's `Values` parser does: whole numbers that fit a long take the
//! smallest integer type, other finite values a float32 (or float64 when a float32 overflows), and
//! anything else, such as integers beyond a long, a Decimal.

use ferry_api::data::{Decimal, Schema, Value};

use crate::values_align::Parsed;

/// A number in Java's `BigDecimal` syntax, typed as described in the module docs.
pub fn parse_number(token: &str) -> Option<Parsed> {
    let n = DecimalText::parse(token)?;
    if let Some(integral) = n.exact_long() {
        return Some(smallest_integer(integral));
    }
    if n.scale != 0 {
        if let Some(f) = token.parse::<f32>().ok().filter(|f| f.is_finite()) {
            return Some(Parsed::new(Schema::float32(), Value::Float32(f)));
        }
        if let Some(d) = token.parse::<f64>().ok().filter(|d| d.is_finite()) {
            return Some(Parsed::new(Schema::float64(), Value::Float64(d)));
        }
    }
    let decimal = Decimal::parse(token)?;
    let schema = ferry_api::data::decimal(decimal.scale).build();
    Some(Parsed::new(schema, Value::Decimal(decimal)))
}

fn smallest_integer(n: i64) -> Parsed {
    if let Ok(v) = i8::try_from(n) {
        Parsed::new(Schema::int8(), Value::Int8(v))
    } else if let Ok(v) = i16::try_from(n) {
        Parsed::new(Schema::int16(), Value::Int16(v))
    } else if let Ok(v) = i32::try_from(n) {
        Parsed::new(Schema::int32(), Value::Int32(v))
    } else {
        Parsed::new(Schema::int64(), Value::Int64(n))
    }
}

/// The parts of a `BigDecimal` literal: sign, significant digits and scale.
struct DecimalText {
    negative: bool,
    /// The digits of the unscaled value without leading zeros (empty for zero).
    digits: String,
    scale: i64,
}

impl DecimalText {
    /// Accepts `[+-]digits[.digits][(e|E)[+-]digits]` with at least one mantissa digit, and a
    /// scale that fits an int, as `new BigDecimal(String)` does.
    fn parse(token: &str) -> Option<DecimalText> {
        let (negative, rest) = match token.as_bytes().first()? {
            b'-' => (true, &token[1..]),
            b'+' => (false, &token[1..]),
            _ => (false, token),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.len() + frac.len() == 0 || !all_digits(int_part) || !all_digits(frac) {
            return None;
        }
        let exp: i64 = match exponent {
            None => 0,
            Some(e) => {
                let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
                if unsigned.is_empty() || !all_digits(unsigned) {
                    return None;
                }
                i32::try_from(e.parse::<i64>().ok()?).ok()?.into()
            }
        };
        let scale = i64::try_from(frac.len()).ok()? - exp;
        i32::try_from(scale).ok()?;
        let digits = format!("{int_part}{frac}")
            .trim_start_matches('0')
            .to_owned();
        Some(DecimalText {
            negative,
            digits,
            scale,
        })
    }

    /// The value as a long, if it is whole and fits one.
    fn exact_long(&self) -> Option<i64> {
        if self.digits.is_empty() {
            return Some(0);
        }
        let whole = if self.scale > 0 {
            let scale = usize::try_from(self.scale).ok()?;
            if scale >= self.digits.len() {
                return None;
            }
            let (whole, fraction) = self.digits.split_at(self.digits.len() - scale);
            if fraction.bytes().any(|b| b != b'0') {
                return None;
            }
            whole.to_owned()
        } else {
            let zeros = usize::try_from(-self.scale).ok()?;
            if self.digits.len() + zeros > 19 {
                return None;
            }
            format!("{}{}", self.digits, "0".repeat(zeros))
        };
        let magnitude: i128 = whole.parse().ok()?;
        i64::try_from(if self.negative { -magnitude } else { magnitude }).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(token: &str) -> Option<Value> {
        parse_number(token).map(|p| p.value)
    }

    #[test]
    fn java_big_decimal_syntax() {
        assert_eq!(value("+.5"), Some(Value::Float32(0.5)));
        assert_eq!(value("-5."), Some(Value::Int8(-5)));
        assert_eq!(value("1.e2"), Some(Value::Int8(100)));
        assert_eq!(value("2E-1"), Some(Value::Float32(0.2)));
        for bad in [
            "",
            "-",
            ".",
            "1e",
            "1e+",
            "1.2.3",
            "1,5",
            "NaN",
            "1e2147483648",
            " 1",
        ] {
            assert_eq!(value(bad), None, "{bad}");
        }
    }

    #[test]
    fn whole_numbers_ignore_trailing_fraction_zeros() {
        assert_eq!(value("12.000"), Some(Value::Int8(12)));
        assert_eq!(value("120e-1"), Some(Value::Int8(12)));
        assert_eq!(value("0.0e9"), Some(Value::Int8(0)));
        assert_eq!(
            value("92233720368547758.07e2"),
            Some(Value::Int64(i64::MAX))
        );
    }

    #[test]
    fn tiny_fractions_underflow_to_a_zero_float() {
        assert_eq!(value("1e-50"), Some(Value::Float32(0.0)));
    }
}
