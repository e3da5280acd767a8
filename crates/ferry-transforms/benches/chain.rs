//! Records per second through a chain of five transforms on 100-field structs (issue 5's
//! benchmark). Run with `cargo bench -p ferry-transforms --bench chain`.

use std::time::Instant;

use ferry_api::data::{Schema, SchemaBuilder, Struct, Value};
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

fn main() {
    let mut builder = SchemaBuilder::struct_();
    for i in 0..100 {
        builder = builder.field(
            format!("f{i}"),
            if i % 2 == 0 {
                Schema::int64()
            } else {
                Schema::string()
            },
        );
    }
    let schema = builder.build();
    let mut value = Struct::new(schema.clone()).unwrap();
    for i in 0..100 {
        let v = if i % 2 == 0 {
            Value::Int64(i)
        } else {
            Value::String(format!("value {i}"))
        };
        value.put(&format!("f{i}"), v).unwrap();
    }
    let chain = [
        transform(
            "org.apache.kafka.connect.transforms.ReplaceField$Value",
            &[("renames", "f1:renamed")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.InsertField$Value",
            &[("static.field", "origin"), ("static.value", "ferry")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.MaskField$Value",
            &[("fields", "f3")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.Cast$Value",
            &[("spec", "f0:string")],
        ),
        transform(
            "org.apache.kafka.connect.transforms.RegexRouter",
            &[("regex", "(.*)"), ("replacement", "$1-out")],
        ),
    ];
    let record = SourceRecord::new(None, None, "in", Some(schema), Value::Struct(value));
    let n = 200_000;
    // Warm the transforms' schema caches.
    for _ in 0..1_000 {
        let mut r = record.clone();
        for t in &chain {
            t.apply(&mut r).unwrap();
        }
    }
    let start = Instant::now();
    for _ in 0..n {
        let mut r = record.clone();
        for t in &chain {
            t.apply(&mut r).unwrap();
        }
        std::hint::black_box(&r);
    }
    let elapsed = start.elapsed();
    if std::env::var_os("FERRY_BENCH_EACH").is_some() {
        // Each stage alone, on the record as the stages before it leave it.
        let mut input = record.clone();
        for (i, t) in chain.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..20_000 {
                let mut r = input.clone();
                t.apply(&mut r).unwrap();
                std::hint::black_box(&r);
            }
            println!(
                "stage {i}: {:.2} µs per record",
                start.elapsed().as_secs_f64() * 1e6 / 20_000.0
            );
            t.apply(&mut input).unwrap();
        }
    }
    let clone_start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(record.clone());
    }
    let clone = clone_start.elapsed();
    println!(
        "chain of 5 transforms on 100-field structs: {:.0} records/s ({:.2} µs per record, of which {:.2} µs is copying the input record)",
        n as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / n as f64,
        clone.as_secs_f64() * 1e6 / n as f64
    );
}
