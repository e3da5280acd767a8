//! A JSON tree shaped like Jackson's `JsonNode`: the converter decides everything on this tree,
//! so Jackson's node-level quirks (lenient accessors, number kinds) live here.

use ferry_api::data::Decimal;
use ferry_api::ConnectError;
use indexmap::IndexMap;
use num_bigint::{BigInt, Sign};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonNode {
    Null,
    Bool(bool),
    /// An integer produced when writing Connect data.
    Int(i64),
    /// Written with Java's `Float.toString`.
    Float(f32),
    /// Written with Java's `Double.toString`.
    Double(f64),
    /// Written with Java's `BigDecimal.toString` (NUMERIC decimals).
    Decimal(Decimal),
    /// A number as parsed, kept as text so no precision is lost before a schema says how to
    /// read it.
    Number(JsonNumber),
    Text(String),
    /// Written as padded standard Base64 text.
    Binary(Vec<u8>),
    Array(Vec<JsonNode>),
    /// Keys keep their first position; a repeated key replaces the value, as in Jackson.
    Object(IndexMap<String, JsonNode>),
}

impl JsonNode {
    /// Jackson's `JsonNodeType` name, used in error messages.
    pub(crate) fn node_type(&self) -> &'static str {
        match self {
            JsonNode::Null => "NULL",
            JsonNode::Bool(_) => "BOOLEAN",
            JsonNode::Int(_)
            | JsonNode::Float(_)
            | JsonNode::Double(_)
            | JsonNode::Decimal(_)
            | JsonNode::Number(_) => "NUMBER",
            JsonNode::Text(_) => "STRING",
            JsonNode::Binary(_) => "BINARY",
            JsonNode::Array(_) => "ARRAY",
            JsonNode::Object(_) => "OBJECT",
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&JsonNode> {
        match self {
            JsonNode::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// What iterating a Jackson node yields: array items, object values, nothing otherwise.
    pub(crate) fn elements(&self) -> Box<dyn Iterator<Item = &JsonNode> + '_> {
        match self {
            JsonNode::Array(items) => Box::new(items.iter()),
            JsonNode::Object(map) => Box::new(map.values()),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn number(&self) -> Option<&JsonNumber> {
        match self {
            JsonNode::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Jackson's `intValue()`: truncated for numbers, 0 for anything else.
    pub(crate) fn int_value(&self) -> i32 {
        self.long_value() as i32
    }

    /// Jackson's `longValue()`: truncated for numbers, 0 for anything else.
    pub(crate) fn long_value(&self) -> i64 {
        self.number().map_or(0, JsonNumber::long_value)
    }

    /// Jackson's `floatValue()`: nearest float for numbers, 0 for anything else.
    pub(crate) fn float_value(&self) -> f32 {
        self.number()
            .map_or(0.0, |n| n.text.parse::<f32>().unwrap_or(0.0))
    }

    /// Jackson's `doubleValue()`: nearest double for numbers, 0 for anything else.
    pub(crate) fn double_value(&self) -> f64 {
        self.number()
            .map_or(0.0, |n| n.text.parse::<f64>().unwrap_or(0.0))
    }

    /// Jackson's `isInt()`: an integer literal that fits in 32 bits.
    pub(crate) fn is_int(&self) -> bool {
        self.number()
            .is_some_and(|n| n.integral && n.text.parse::<i32>().is_ok())
    }

    pub(crate) fn is_integral(&self) -> bool {
        self.number().is_some_and(|n| n.integral)
    }
}

/// A parsed JSON number: its text (leading zeros removed) and whether it had no fraction or
/// exponent, which is how Jackson tells integers from floating-point numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonNumber {
    pub(crate) text: String,
    pub(crate) integral: bool,
}

impl JsonNumber {
    /// Like Java's `longValue()` on the matching node: the fraction is dropped and only the
    /// low 64 bits of a huge integer are kept.
    pub(crate) fn long_value(&self) -> i64 {
        if let Ok(v) = self.text.parse::<i64>() {
            return v;
        }
        if self.integral {
            return self.text.parse::<BigInt>().map_or(0, |b| low_64_bits(&b));
        }
        self.decimal_value()
            .map_or(0, |d| truncated_low_64_bits(&d))
    }

    /// Java's `BigDecimal` for this text, scale included (`1.50` has scale 2, `1E+3` scale -3).
    pub(crate) fn decimal_value(&self) -> Result<Decimal, ConnectError> {
        let parsed = if self.integral {
            self.text.parse::<BigInt>().ok().map(|b| Decimal::new(b, 0))
        } else {
            Decimal::parse(&self.text)
        };
        parsed.ok_or_else(|| ConnectError::data(format!("Invalid decimal number {}", self.text)))
    }
}

fn low_64_bits(b: &BigInt) -> i64 {
    let bytes = b.to_signed_bytes_le();
    let fill = if b.sign() == Sign::Minus { 0xFF } else { 0 };
    let mut word = [fill; 8];
    for (slot, byte) in word.iter_mut().zip(bytes.iter()) {
        *slot = *byte;
    }
    i64::from_le_bytes(word)
}

/// `BigDecimal.longValue()`: truncate toward zero, keep the low 64 bits. Huge exponents are
/// short-cut because 10^64 is a multiple of 2^64 and tiny values truncate to zero.
fn truncated_low_64_bits(d: &Decimal) -> i64 {
    if d.scale <= 0 {
        let zeros = -i64::from(d.scale);
        if zeros >= 64 {
            return 0;
        }
        let factor = BigInt::from(10u32).pow(zeros as u32);
        return low_64_bits(&(&d.unscaled * factor));
    }
    let digits = d.unscaled.magnitude().to_string().len();
    if d.scale as usize >= digits {
        return 0;
    }
    let divisor = BigInt::from(10u32).pow(d.scale as u32);
    low_64_bits(&(&d.unscaled / divisor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str, integral: bool) -> JsonNode {
        JsonNode::Number(JsonNumber {
            text: text.to_owned(),
            integral,
        })
    }

    #[test]
    fn accessors_truncate_like_java() {
        assert_eq!(
            num("4398046511104", true).int_value(),
            4398046511104i64 as i32
        );
        assert_eq!(num("18446744073709551617", true).long_value(), 1);
        assert_eq!(num("-12.9", false).long_value(), -12);
        assert_eq!(num("1e100", false).long_value(), 0);
        assert_eq!(num("1.5E2", false).int_value(), 150);
        assert_eq!(JsonNode::Text("5".into()).int_value(), 0);
        assert!(num("2147483647", true).is_int());
        assert!(!num("2147483648", true).is_int());
        assert!(!num("1.0", false).is_int());
    }

    #[test]
    fn decimal_value_keeps_scale() {
        let dec = |text: &str, integral: bool| {
            JsonNumber {
                text: text.to_owned(),
                integral,
            }
            .decimal_value()
            .unwrap()
        };
        assert_eq!(dec("1.5600", false), Decimal::new(15600, 4));
        assert_eq!(dec("1.2E+3", false), Decimal::new(12, -2));
        assert_eq!(dec("12", true), Decimal::new(12, 0));
    }
}
