//! Worker settings that shape every response: CORS (`access.control.allow.origin`,
//! `access.control.allow.methods`) and `response.http.headers.config`, as Java's Jetty filters do.

use std::time::{Duration, SystemTime};

use axum::http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// One `response.http.headers.config` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderRule {
    action: Action,
    name: String,
    value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Set,
    Add,
    SetDate,
    AddDate,
}

/// Splits the config on commas outside double quotes, as Java does.
fn split_rules(config: &str) -> Vec<String> {
    let (mut rules, mut current, mut quoted) = (Vec::new(), String::new(), false);
    for c in config.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => rules.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    rules.push(current);
    rules
        .into_iter()
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .collect()
}

/// Parses `response.http.headers.config`, with Java's messages for bad rules.
pub fn parse_header_rules(config: &str) -> Result<Vec<HeaderRule>, String> {
    split_rules(config)
        .into_iter()
        .map(|rule| {
            let (action, pair) = rule
                .split_once(char::is_whitespace)
                .ok_or_else(|| format!("Invalid format of header config '{rule}'. Expected: '[action] [header name]:[header value]'"))?;
            let action = match action.to_ascii_lowercase().as_str() {
                "set" => Action::Set,
                "add" => Action::Add,
                "setdate" => Action::SetDate,
                "adddate" => Action::AddDate,
                _ => return Err(format!("Invalid header config action: '{action}'. Expected one of [set, add, setDate, addDate]")),
            };
            let pair = pair.trim();
            let (name, value) = pair
                .split_once(':')
                .ok_or_else(|| format!("Invalid format of header name and header value pair '{pair}'. Expected: '[header name]:[header value]'"))?;
            let name = name.trim();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(format!("Invalid header name '{name}'. The '[header name]' cannot contain whitespace"));
            }
            Ok(HeaderRule { action, name: name.to_owned(), value: value.trim().to_owned() })
        })
        .collect()
}

/// Applies the rules to a response's headers. Date actions take a number of milliseconds to
/// add to the current time, formatted as an HTTP date (Jetty's `HeaderFilter`).
pub fn apply_rules(rules: &[HeaderRule], headers: &mut axum::http::HeaderMap) {
    for rule in rules {
        let Ok(name) = HeaderName::from_bytes(rule.name.as_bytes()) else {
            continue;
        };
        let value = match rule.action {
            Action::Set | Action::Add => rule.value.clone(),
            Action::SetDate | Action::AddDate => {
                let offset = rule.value.parse::<u64>().unwrap_or(0);
                httpdate::fmt_http_date(SystemTime::now() + Duration::from_millis(offset))
            }
        };
        let Ok(value) = HeaderValue::from_str(&value) else {
            continue;
        };
        match rule.action {
            Action::Set | Action::SetDate => {
                headers.insert(name, value);
            }
            Action::Add | Action::AddDate => {
                headers.append(name, value);
            }
        }
    }
}

/// The CORS layer, when `access.control.allow.origin` is set.
pub fn cors(allow_origin: &str, allow_methods: &str) -> Option<CorsLayer> {
    let origins: Vec<&str> = allow_origin
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.contains(&"*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    let methods: Vec<Method> = if allow_methods.trim().is_empty() {
        vec![Method::GET, Method::POST, Method::HEAD]
    } else {
        allow_methods
            .split(',')
            .filter_map(|m| m.trim().parse().ok())
            .collect()
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods(methods)
            .allow_headers(tower_http::cors::Any),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_with_javas_messages() {
        let rules = parse_header_rules(r#"set X-Frame-Options:DENY, "add Cache-Control: no-cache, no-store", setDate Expires:31540000000"#).unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[1].value, "no-cache, no-store");
        assert_eq!(
            parse_header_rules("set").unwrap_err(),
            "Invalid format of header config 'set'. Expected: '[action] [header name]:[header value]'"
        );
        assert_eq!(
            parse_header_rules("put X:1").unwrap_err(),
            "Invalid header config action: 'put'. Expected one of [set, add, setDate, addDate]"
        );
        assert_eq!(
            parse_header_rules("set X=1").unwrap_err(),
            "Invalid format of header name and header value pair 'X=1'. Expected: '[header name]:[header value]'"
        );
        assert_eq!(
            parse_header_rules("set X Y:1").unwrap_err(),
            "Invalid header name 'X Y'. The '[header name]' cannot contain whitespace"
        );
    }

    #[test]
    fn rules_apply() {
        let rules = parse_header_rules("set X-A:1,add X-A:2,set X-B:3").unwrap();
        let mut headers = axum::http::HeaderMap::new();
        apply_rules(&rules, &mut headers);
        let a: Vec<_> = headers.get_all("x-a").iter().collect();
        assert_eq!(a, vec!["1", "2"]);
        assert_eq!(headers["x-b"], "3");
    }
}
