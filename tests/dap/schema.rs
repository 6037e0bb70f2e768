//! A validator for the JSON Schema subset the official Debug Adapter Protocol schema
//! (`debugAdapterProtocol.json`, vendored beside this file with its licence) uses: `$ref`, `allOf`, `oneOf`,
//! `type`, `enum`, `required`, `properties`, `additionalProperties`, `items`, `minimum`, `maximum`.

use serde_json::Value;

/// The DAP schema.
pub struct Schema {
    root: Value,
}

impl Schema {
    /// The vendored schema.
    pub fn load() -> Schema {
        let text = include_str!("debugAdapterProtocol.json");
        Schema { root: serde_json::from_str(text).expect("the vendored schema is JSON") }
    }

    fn definition(&self, name: &str) -> Option<&Value> {
        self.root["definitions"].get(name)
    }

    /// Checks a message the adapter sent against its definition: `<Command>Response` for a successful
    /// response (`ErrorResponse` for a failed one), `<Event>Event` for an event.
    pub fn validate_message(&self, m: &Value) -> Result<(), String> {
        let name = match m["type"].as_str() {
            Some("response") if m["success"] == Value::Bool(false) => "ErrorResponse".to_string(),
            Some("response") => format!("{}Response", capitalized(m["command"].as_str().unwrap_or(""))),
            Some("event") => format!("{}Event", capitalized(m["event"].as_str().unwrap_or(""))),
            other => return Err(format!("a message of type {other:?}")),
        };
        let schema = self.definition(&name).ok_or_else(|| format!("the schema has no {name}"))?;
        self.check(schema, m, &name)
    }

    fn check(&self, s: &Value, v: &Value, at: &str) -> Result<(), String> {
        if let Some(r) = s["$ref"].as_str() {
            let name = r.strip_prefix("#/definitions/").ok_or_else(|| format!("{at}: unsupported $ref {r}"))?;
            let d = self.definition(name).ok_or_else(|| format!("{at}: no definition {name}"))?;
            self.check(d, v, at)?;
        }
        for sub in s["allOf"].as_array().into_iter().flatten() {
            self.check(sub, v, at)?;
        }
        if let Some(one) = s["oneOf"].as_array() {
            if !one.iter().any(|sub| self.check(sub, v, at).is_ok()) {
                return Err(format!("{at}: {v} matches none of oneOf"));
            }
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => return Err(format!("{at}: bad type in the schema")),
            };
            if !types.iter().any(|t| has_type(v, t)) {
                return Err(format!("{at}: {v} is not of type {types:?}"));
            }
        }
        if let Some(e) = s["enum"].as_array() {
            if !e.contains(v) {
                return Err(format!("{at}: {v} is not one of {e:?}"));
            }
        }
        if let (Some(min), Some(x)) = (s["minimum"].as_f64(), v.as_f64()) {
            if x < min {
                return Err(format!("{at}: {x} is below the minimum {min}"));
            }
        }
        if let (Some(max), Some(x)) = (s["maximum"].as_f64(), v.as_f64()) {
            if x > max {
                return Err(format!("{at}: {x} is above the maximum {max}"));
            }
        }
        if let Some(obj) = v.as_object() {
            self.check_object(s, obj, at)?;
        }
        if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
            for (i, x) in arr.iter().enumerate() {
                self.check(items, x, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }

    fn check_object(&self, s: &Value, obj: &serde_json::Map<String, Value>, at: &str) -> Result<(), String> {
        for r in s["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !obj.contains_key(r) {
                return Err(format!("{at}: missing required `{r}`"));
            }
        }
        let props = s["properties"].as_object();
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(p) => self.check(p, x, &format!("{at}.{k}"))?,
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => return Err(format!("{at}: unexpected property `{k}`")),
                    Some(extra @ Value::Object(_)) => self.check(extra, x, &format!("{at}.{k}"))?,
                    _ => {}
                },
            }
        }
        Ok(())
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        _ => false,
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().collect::<String>() + c.as_str())
}
