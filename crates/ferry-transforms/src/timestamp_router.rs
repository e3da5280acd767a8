//! `TimestampRouter`: renames the topic from `topic.format`, where `${topic}` stands for the
//! current topic and `${timestamp}` for the record's timestamp written with `timestamp.format` (a
//! `SimpleDateFormat` pattern, in UTC). Records without a timestamp are an error.
//!
//! As in Java, a bad `timestamp.format` is only reported when the first record arrives.

use ferry_api::config::{ConfigDef, ConfigKey, ConfigType, DefaultValue, Importance};
use ferry_api::data::Schema;
use ferry_api::java::java_to_string;
use ferry_api::transform::{Record, Transformation};
use ferry_api::{ConfigMap, ConnectError};

use crate::date_format::DateFormat;

pub const TOPIC_FORMAT_CONFIG: &str = "topic.format";
pub const TIMESTAMP_FORMAT_CONFIG: &str = "timestamp.format";

const TOPIC_PLACEHOLDER: &str = "${topic}";
const TIMESTAMP_PLACEHOLDER: &str = "${timestamp}";

/// The keys `TimestampRouter` accepts.
pub fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            TOPIC_FORMAT_CONFIG,
            ConfigType::String,
            DefaultValue::Value("${topic}-${timestamp}".to_owned()),
            Importance::High,
            "The new topic name, in which ${topic} is replaced by the current topic and \
             ${timestamp} by the formatted record timestamp.",
        ))
        .define(ConfigKey::new(
            TIMESTAMP_FORMAT_CONFIG,
            ConfigType::String,
            DefaultValue::Value("yyyyMMdd".to_owned()),
            Importance::High,
            "How ${timestamp} is written: a java.text.SimpleDateFormat pattern, applied in UTC.",
        ))
}

fn schema_string(schema: Option<&Schema>) -> String {
    match schema {
        None => "null".to_owned(),
        Some(s) => match &s.name {
            Some(name) => format!("Schema{{{name}:{}}}", s.kind.java_name()),
            None => format!("Schema{{{}}}", s.kind.java_name()),
        },
    }
}

/// Java's `ConnectRecord.toString()`, as its error message shows the record.
fn record_string(record: &dyn Record) -> String {
    let text = |schema: Option<&Schema>, value| {
        java_to_string(schema, value).unwrap_or_else(|| "null".to_owned())
    };
    let headers: Vec<String> = record
        .headers()
        .iter()
        .map(|h| {
            format!(
                "ConnectHeader(key={}, value={}, schema={})",
                h.key,
                text(h.schema.as_deref(), &h.value),
                schema_string(h.schema.as_deref())
            )
        })
        .collect();
    let headers = if headers.is_empty() {
        String::new()
    } else {
        format!("[{}]", headers.join(", "))
    };
    format!(
        "ConnectRecord{{topic='{}', kafkaPartition={}, key={}, keySchema={}, value={}, valueSchema={}, timestamp={}, headers=ConnectHeaders(headers={headers})}}",
        record.topic(),
        record
            .kafka_partition()
            .map_or_else(|| "null".to_owned(), |p| p.to_string()),
        text(record.key_schema().map(|s| &**s), record.key()),
        schema_string(record.key_schema().map(|s| &**s)),
        text(record.value_schema().map(|s| &**s), record.value()),
        schema_string(record.value_schema().map(|s| &**s)),
        record
            .timestamp()
            .map_or_else(|| "null".to_owned(), |t| t.to_string()),
    )
}

pub struct TimestampRouter {
    topic_format: String,
    timestamp_format: Result<DateFormat, String>,
}

impl Default for TimestampRouter {
    fn default() -> Self {
        Self::new()
    }
}

impl TimestampRouter {
    pub fn new() -> Self {
        TimestampRouter {
            topic_format: "${topic}-${timestamp}".to_owned(),
            timestamp_format: DateFormat::new("yyyyMMdd"),
        }
    }
}

impl Transformation for TimestampRouter {
    fn configure(&mut self, configs: &ConfigMap) -> ferry_api::error::Result<()> {
        let parsed = config_def().parse(configs)?;
        self.topic_format = parsed.string(TOPIC_FORMAT_CONFIG)?.unwrap_or_default();
        self.timestamp_format =
            DateFormat::new(&parsed.string(TIMESTAMP_FORMAT_CONFIG)?.unwrap_or_default());
        Ok(())
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn apply(&self, record: &mut dyn Record) -> ferry_api::error::Result<bool> {
        let Some(timestamp) = record.timestamp() else {
            return Err(ConnectError::data(format!(
                "Timestamp missing on record: {}",
                record_string(record)
            )));
        };
        let format = self
            .timestamp_format
            .as_ref()
            .map_err(|why| ConnectError::other(why.clone()))?;
        let formatted = format.format(timestamp);
        // The topic goes in first, so a topic containing the timestamp placeholder has it
        // replaced too, as in Java.
        let topic = self
            .topic_format
            .replace(TOPIC_PLACEHOLDER, record.topic())
            .replace(TIMESTAMP_PLACEHOLDER, &formatted);
        record.set_topic(topic);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_api::data::Value;
    use ferry_api::record::SourceRecord;

    fn router(pairs: &[(&str, &str)]) -> TimestampRouter {
        let mut router = TimestampRouter::new();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        router.configure(&props).unwrap();
        router
    }

    fn record(topic: &str, timestamp: Option<i64>) -> SourceRecord {
        SourceRecord {
            topic: topic.to_owned(),
            kafka_partition: Some(0),
            timestamp,
            ..Default::default()
        }
    }

    #[test]
    fn default_configuration() {
        let mut r = record("test", Some(1_483_425_001_864));
        router(&[]).apply(&mut r).unwrap();
        assert_eq!(r.topic, "test-20170103");
    }

    #[test]
    fn custom_formats() {
        let xform = router(&[
            ("topic.format", "${timestamp}.${topic}.${topic}"),
            ("timestamp.format", "yyyy-MM-dd'T'HH"),
        ]);
        let mut r = record("t", Some(1_483_425_001_864));
        xform.apply(&mut r).unwrap();
        assert_eq!(r.topic, "2017-01-03T06.t.t");

        let mut r = record("a${timestamp}", Some(0));
        router(&[]).apply(&mut r).unwrap();
        assert_eq!(r.topic, "a19700101-19700101");
    }

    #[test]
    fn missing_timestamp() {
        let mut r = record("test", None);
        r.key = Value::from("k");
        r.headers.add("h", Some(Schema::string()), "v".into());
        let err = router(&[]).apply(&mut r).unwrap_err();
        assert!(matches!(err, ConnectError::Data { .. }));
        assert_eq!(
            err.to_string(),
            "Timestamp missing on record: ConnectRecord{topic='test', kafkaPartition=0, key=k, \
             keySchema=null, value=null, valueSchema=null, timestamp=null, \
             headers=ConnectHeaders(headers=[ConnectHeader(key=h, value=v, schema=Schema{STRING})])}"
        );
    }

    #[test]
    fn bad_timestamp_format_fails_on_apply() {
        let xform = router(&[("timestamp.format", "bad")]);
        let mut r = record("test", Some(0));
        assert_eq!(
            xform.apply(&mut r).unwrap_err().to_string(),
            "Illegal pattern character 'b'"
        );
        assert_eq!(r.topic, "test");
    }
}
