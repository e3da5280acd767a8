//! Apache Kafka's built-in single message transforms and predicates, under the same class names
//! and config keys. Each plugin is listed once in [`transformations`] or [`predicates`].

mod util;

pub mod predicates;

pub mod cast;
pub mod extract_field;
pub mod flatten;
pub mod hoist_field;
pub mod insert_field;
pub mod mask_field;

mod date_format;
pub mod drop_headers;
pub mod filter;
pub mod header_from;
pub mod insert_header;
pub mod regex_router;
pub mod replace_field;
pub mod set_schema_metadata;
pub mod timestamp_converter;
pub mod timestamp_router;
pub mod value_to_key;

use ferry_api::transform::{Predicate, Transformation};

pub use util::Part;

/// A transform class: its Java class name and how to make one.
pub struct TransformPlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn Transformation>,
}

/// A predicate class.
pub struct PredicatePlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn Predicate>,
}

/// Every built-in transform, with `$Key` and `$Value` variants listed separately.
pub fn transformations() -> Vec<TransformPlugin> {
    vec![
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.Cast$Key",
            create: || Box::new(cast::Cast::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.Cast$Value",
            create: || Box::new(cast::Cast::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.ExtractField$Key",
            create: || Box::new(extract_field::ExtractField::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.ExtractField$Value",
            create: || Box::new(extract_field::ExtractField::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.Flatten$Key",
            create: || Box::new(flatten::Flatten::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.Flatten$Value",
            create: || Box::new(flatten::Flatten::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.HoistField$Key",
            create: || Box::new(hoist_field::HoistField::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.HoistField$Value",
            create: || Box::new(hoist_field::HoistField::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.InsertField$Key",
            create: || Box::new(insert_field::InsertField::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.InsertField$Value",
            create: || Box::new(insert_field::InsertField::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.MaskField$Key",
            create: || Box::new(mask_field::MaskField::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.MaskField$Value",
            create: || Box::new(mask_field::MaskField::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.ReplaceField$Key",
            create: || Box::new(replace_field::ReplaceField::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.ReplaceField$Value",
            create: || Box::new(replace_field::ReplaceField::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Key",
            create: || Box::new(set_schema_metadata::SetSchemaMetadata::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value",
            create: || Box::new(set_schema_metadata::SetSchemaMetadata::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.TimestampConverter$Key",
            create: || Box::new(timestamp_converter::TimestampConverter::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.TimestampConverter$Value",
            create: || Box::new(timestamp_converter::TimestampConverter::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.HeaderFrom$Key",
            create: || Box::new(header_from::HeaderFrom::new(Part::Key)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.HeaderFrom$Value",
            create: || Box::new(header_from::HeaderFrom::new(Part::Value)),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.TimestampRouter",
            create: || Box::new(timestamp_router::TimestampRouter::new()),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.RegexRouter",
            create: || Box::new(regex_router::RegexRouter::new()),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.ValueToKey",
            create: || Box::new(value_to_key::ValueToKey::new()),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.DropHeaders",
            create: || Box::new(drop_headers::DropHeaders::new()),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.InsertHeader",
            create: || Box::new(insert_header::InsertHeader::new()),
        },
        TransformPlugin {
            class_name: "org.apache.kafka.connect.transforms.Filter",
            create: || Box::new(filter::Filter::new()),
        },
    ]
}

/// Every built-in predicate.
pub fn predicates() -> Vec<PredicatePlugin> {
    predicates::all()
}
