//! The conditions of `wait` steps, evaluated on normalised answers.
//!
//! A condition maps paths to tests. Paths are dot-separated: object keys, array indices, `*`
//! (every element, and at least one), `#` (the length of an array, object or string) and
//! `@status` (the HTTP status). A test is a JSON value the path must equal (arrays compared
//! without regard to order), or `{ not = v }`, `{ in = [v…] }`, `{ exists = bool }`.

use serde_json::Value;

use crate::normalize::canonical;

fn resolve<'a>(value: &'a Value, path: &[&str], out: &mut Vec<Option<Value>>) {
    let Some((first, rest)) = path.split_first() else {
        out.push(Some(value.clone()));
        return;
    };
    match *first {
        "*" => {
            let children: Vec<&'a Value> = match value {
                Value::Array(a) => a.iter().collect(),
                Value::Object(o) => o.values().collect(),
                _ => Vec::new(),
            };
            if children.is_empty() {
                out.push(None);
            }
            for c in children {
                resolve(c, rest, out);
            }
        }
        "#" if rest.is_empty() => out.push(match value {
            Value::Array(a) => Some(Value::from(a.len())),
            Value::Object(o) => Some(Value::from(o.len())),
            Value::String(s) => Some(Value::from(s.chars().count())),
            _ => None,
        }),
        key => {
            let child = match value {
                Value::Object(o) => o.get(key),
                Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            };
            match child {
                Some(c) => resolve(c, rest, out),
                None => out.push(None),
            }
        }
    }
}

fn equal(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Array(a), Value::Array(e)) => {
            let mut a: Vec<String> = a.iter().map(canonical).collect();
            let mut e: Vec<String> = e.iter().map(canonical).collect();
            a.sort();
            e.sort();
            a == e
        }
        (a, e) => canonical(a) == canonical(e),
    }
}

fn test(actual: Option<&Value>, expected: &Value) -> bool {
    if let Value::Object(o) = expected {
        if o.len() == 1 {
            let (op, arg) = o.iter().next().expect("one entry");
            match op.as_str() {
                "not" => return !actual.is_some_and(|a| equal(a, arg)),
                "in" => {
                    return actual.is_some_and(|a| {
                        arg.as_array()
                            .is_some_and(|opts| opts.iter().any(|o| equal(a, o)))
                    })
                }
                "exists" => return actual.is_some() == arg.as_bool().unwrap_or(true),
                _ => {}
            }
        }
    }
    actual.is_some_and(|a| equal(a, expected))
}

/// Whether every test of `until` holds for an answer with `status` and (normalised) `body`.
pub fn holds(status: u16, body: &Value, until: &[(String, Value)]) -> bool {
    until.iter().all(|(path, expected)| {
        if path == "@status" {
            return test(Some(&Value::from(status)), expected);
        }
        let parts: Vec<&str> = path.split('.').collect();
        let mut found = Vec::new();
        resolve(body, &parts, &mut found);
        !found.is_empty() && found.iter().all(|a| test(a.as_ref(), expected))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn until(v: Value) -> Vec<(String, Value)> {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    #[test]
    fn paths_wildcards_lengths_and_operators() {
        let body = json!({"connector": {"state": "RUNNING"}, "tasks": [{"state": "RUNNING"}, {"state": "RUNNING"}], "c": {"topics": ["b", "a"]}});
        assert!(holds(
            200,
            &body,
            &until(json!({"connector.state": "RUNNING", "tasks.*.state": "RUNNING", "tasks.#": 2}))
        ));
        assert!(holds(
            200,
            &body,
            &until(json!({"@status": 200, "c.topics": ["a", "b"]}))
        ));
        assert!(!holds(
            200,
            &body,
            &until(json!({"tasks.0.state": {"not": "RUNNING"}}))
        ));
        assert!(holds(
            200,
            &body,
            &until(
                json!({"tasks.0.state": {"in": ["FAILED", "RUNNING"]}, "tasks.5": {"exists": false}})
            )
        ));
        let empty = json!({"tasks": []});
        assert!(!holds(
            200,
            &empty,
            &until(json!({"tasks.*.state": "RUNNING"}))
        ));
        assert!(holds(404, &Value::Null, &until(json!({"@status": 404}))));
    }
}
