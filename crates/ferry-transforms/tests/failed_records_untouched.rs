//! Transforms rebuild structs by moving the input's values, not copying them. A record a
//! transform refuses must still be whole afterwards: the error handler logs it, and a tolerated
//! failure reports it, as it was before the failing stage.

use ferry_api::data::{Schema, SchemaBuilder, SchemaRef, Struct, Value};
use ferry_api::record::SourceRecord;
use ferry_api::transform::Transformation;
use ferry_api::ConfigMap;
use ferry_transforms::transformations;

fn transform(class: &str, pairs: &[(&str, &str)]) -> Box<dyn Transformation> {
    let plugin = transformations()
        .into_iter()
        .find(|p| p.class_name == class)
        .unwrap();
    let mut t = (plugin.create)();
    let config: ConfigMap = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    t.configure(&config).unwrap();
    t
}

/// The four transforms that rebuild a struct: a rename of `name`, a static field, a mask of
/// `masked`, a cast of `cast` to a string.
fn rebuilding_stages(masked: &str, cast: &str) -> Vec<Box<dyn Transformation>> {
    vec![
        transform(
            "org.apache.kafka.connect.transforms.ReplaceField$Value",
            &[("renames", "name:title")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.InsertField$Value",
            &[("static.field", "origin"), ("static.value", "ferry")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.MaskField$Value",
            &[("fields", masked)],
        ),
        transform(
            "org.apache.kafka.connect.transforms.Cast$Value",
            &[("spec", &format!("{cast}:string"))],
        ),
    ]
}

fn schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .field("id", Schema::int64())
        .field("name", Schema::string())
        .field("note", Schema::optional_string())
        .build()
}

/// A record whose struct leaves the required `id` unset when `id` is None.
fn record(id: Option<i64>, name: &str) -> SourceRecord {
    let schema = schema();
    let mut value = Struct::new(schema.clone()).unwrap();
    if let Some(id) = id {
        value.put("id", id).unwrap();
    }
    value.put("name", name).unwrap();
    value.put("note", "kept").unwrap();
    SourceRecord::new(None, None, "in", Some(schema), Value::Struct(value))
}

fn refused_and_untouched(t: &dyn Transformation, input: SourceRecord, message: &str) {
    let mut r = input.clone();
    let error = t.apply(&mut r).unwrap_err().to_string();
    assert!(error.contains(message), "{error}");
    assert_eq!(r, input, "the refused record is left as it was");
}

const NULL_ID: &str = "Invalid value: null used for required field: \"id\", schema type: INT64";

#[test]
fn a_required_field_holding_null_fails_each_rebuilding_transform_before_anything_moves() {
    for t in &rebuilding_stages("name", "note") {
        refused_and_untouched(t.as_ref(), record(None, "a"), NULL_ID);
    }
}

#[test]
fn a_failing_cast_leaves_the_record_whole() {
    let t = transform(
        "org.apache.kafka.connect.transforms.Cast$Value",
        &[("spec", "name:int32")],
    );
    refused_and_untouched(t.as_ref(), record(Some(1), "not a number"), "not a number");
}

#[test]
fn rebuilt_structs_carry_every_value_over() {
    let mut r = record(Some(7), "seven");
    for t in &rebuilding_stages("note", "id") {
        assert!(t.apply(&mut r).unwrap());
    }
    let Value::Struct(out) = &r.value else {
        panic!("{:?}", r.value)
    };
    let names: Vec<&str> = out
        .schema()
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["id", "title", "note", "origin"]);
    assert_eq!(
        out.values(),
        [
            Value::from("7"),
            Value::from("seven"),
            Value::from(""),
            Value::from("ferry")
        ]
    );
    assert_eq!(r.value_schema.as_ref(), Some(out.schema()));
}
