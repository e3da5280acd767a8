//! Connect's built-in simple converters: `StringConverter`, `ByteArrayConverter`, the fixed-width
//! number and boolean converters, and `SimpleHeaderConverter` (the default header converter),
//! together with the `Values` text form that header converter reads and writes.

pub mod config;
pub mod encoding;
mod values_align;
mod values_number;
mod values_tokens;

pub mod byte_array;
pub mod numeric;
pub mod simple_header;
pub mod string;
pub mod values_parse;
pub mod values_text;

pub use byte_array::ByteArrayConverter;
pub use numeric::{
    BooleanConverter, DoubleConverter, FixedWidth, FixedWidthConverter, FloatConverter,
    IntegerConverter, LongConverter, ShortConverter,
};
pub use simple_header::SimpleHeaderConverter;
pub use string::StringConverter;
pub use values_parse::parse_string;
pub use values_text::convert_to_string;
