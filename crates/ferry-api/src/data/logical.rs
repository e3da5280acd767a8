//! Connect's logical types: Decimal, Date, Time and Timestamp.

use num_bigint::BigInt;

use crate::data::{SchemaBuilder, Type};

pub const DECIMAL_LOGICAL_NAME: &str = "org.apache.kafka.connect.data.Decimal";
pub const DECIMAL_SCALE_PARAMETER: &str = "scale";
pub const DATE_LOGICAL_NAME: &str = "org.apache.kafka.connect.data.Date";
pub const TIME_LOGICAL_NAME: &str = "org.apache.kafka.connect.data.Time";
pub const TIMESTAMP_LOGICAL_NAME: &str = "org.apache.kafka.connect.data.Timestamp";

/// An arbitrary-precision decimal: `unscaled × 10^-scale` (Java's `BigDecimal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    pub unscaled: BigInt,
    pub scale: i32,
}

impl Decimal {
    pub fn new(unscaled: impl Into<BigInt>, scale: i32) -> Self {
        Decimal {
            unscaled: unscaled.into(),
            scale,
        }
    }

    /// The two's-complement big-endian bytes of the unscaled value (Java's `BigInteger.toByteArray`).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.unscaled.to_signed_bytes_be()
    }

    pub fn from_bytes(bytes: &[u8], scale: i32) -> Self {
        Decimal {
            unscaled: BigInt::from_signed_bytes_be(bytes),
            scale,
        }
    }

    /// Plain decimal notation (Java's `BigDecimal.toPlainString`).
    pub fn to_plain_string(&self) -> String {
        let digits = self.unscaled.magnitude().to_string();
        let sign = if self.unscaled.sign() == num_bigint::Sign::Minus {
            "-"
        } else {
            ""
        };
        if self.scale <= 0 {
            let zeros = "0".repeat(usize::try_from(-i64::from(self.scale)).unwrap_or(0));
            return if digits == "0" {
                "0".to_owned()
            } else {
                format!("{sign}{digits}{zeros}")
            };
        }
        let scale = usize::try_from(self.scale).unwrap_or(0);
        let padded = if digits.len() <= scale {
            format!("{}{}", "0".repeat(scale - digits.len() + 1), digits)
        } else {
            digits
        };
        let (int_part, frac) = padded.split_at(padded.len() - scale);
        format!("{sign}{int_part}.{frac}")
    }

    /// Parses plain decimal notation such as `-12.340` (scale = digits after the point).
    pub fn parse(text: &str) -> Option<Self> {
        let (mantissa, exp) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{int_part}{frac}");
        let unscaled: BigInt = digits.parse().ok()?;
        let scale = i32::try_from(frac.len()).ok()? - exp;
        Some(Decimal { unscaled, scale })
    }
}

/// Schema builder for a Decimal with `scale` (bytes, version 1, parameter `scale`).
pub fn decimal(scale: i32) -> SchemaBuilder {
    SchemaBuilder::new(Type::Bytes)
        .name(DECIMAL_LOGICAL_NAME)
        .parameter(DECIMAL_SCALE_PARAMETER, scale.to_string())
        .version(1)
}

/// Schema builder for a Date: int32 days since the epoch.
pub fn date() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int32)
        .name(DATE_LOGICAL_NAME)
        .version(1)
}

/// Schema builder for a Time: int32 milliseconds since midnight.
pub fn time() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int32)
        .name(TIME_LOGICAL_NAME)
        .version(1)
}

/// Schema builder for a Timestamp: int64 milliseconds since the epoch.
pub fn timestamp() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int64)
        .name(TIMESTAMP_LOGICAL_NAME)
        .version(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_bytes_match_java_big_integer() {
        // 201 needs a leading zero byte so it is not read as negative: 00 C9.
        assert_eq!(Decimal::new(201, 2).to_bytes(), vec![0x00, 0xC9]);
        assert_eq!(Decimal::new(-1, 0).to_bytes(), vec![0xFF]);
        assert_eq!(Decimal::from_bytes(&[0x00, 0xC9], 2), Decimal::new(201, 2));
    }

    #[test]
    fn decimal_plain_strings() {
        assert_eq!(Decimal::new(201, 2).to_plain_string(), "2.01");
        assert_eq!(Decimal::new(-5, 3).to_plain_string(), "-0.005");
        assert_eq!(Decimal::new(12, -2).to_plain_string(), "1200");
        assert_eq!(Decimal::parse("-12.340"), Some(Decimal::new(-12340, 3)));
        assert_eq!(Decimal::parse("1.5E2"), Some(Decimal::new(15, -1)));
    }
}
