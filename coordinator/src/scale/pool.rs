//! Worker pools: which lanes a Deployment consumes and its replica bounds,
//! parsed from `--pool name=lane+lane:min:max`.

use adfarm_proto::Lane;

/// A worker pool: a Deployment consuming some lanes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    /// Pool name (the chart's `workers.pools[].name`).
    pub name: String,
    /// Lanes its workers consume.
    pub lanes: Vec<Lane>,
    /// Fewest replicas.
    pub min_replicas: u32,
    /// Most replicas.
    pub max_replicas: u32,
}

/// A pool description that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad worker pool {spec:?}: {why} (expected NAME=LANE[+LANE...][:MIN:MAX])")]
pub struct PoolParseError {
    /// The text given.
    pub spec: String,
    /// What is wrong with it.
    pub why: String,
}

impl PoolParseError {
    /// Bounded error code.
    pub fn code(&self) -> &'static str {
        "autoscale-bad-pool"
    }
}

impl Pool {
    /// One pool per lane, named after it: the chart's default pools.
    pub fn per_lane(min_replicas: u32, max_replicas: u32) -> Vec<Pool> {
        Lane::ALL
            .iter()
            .map(|k| Pool {
                name: k.as_str().to_string(),
                lanes: vec![*k],
                min_replicas,
                max_replicas,
            })
            .collect()
    }

    /// Parses `NAME=LANE[+LANE...][:MIN:MAX]`, e.g. `llm=solve+model:0:20`;
    /// `min`/`max` fill in what the text leaves out.
    ///
    /// # Errors
    /// A missing name, an unknown lane, bad numbers or `MIN > MAX`.
    pub fn parse(text: &str, min: u32, max: u32) -> Result<Pool, PoolParseError> {
        let err = |why: &str| PoolParseError {
            spec: text.to_string(),
            why: why.to_string(),
        };
        let (name, rest) = text.split_once('=').ok_or_else(|| err("no `=`"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(err("empty pool name"));
        }
        let mut parts = rest.split(':');
        let lanes = parts
            .next()
            .unwrap_or_default()
            .split('+')
            .map(|k| {
                Lane::parse(k.trim()).ok_or_else(|| {
                    err(&format!(
                        "unknown lane {k:?}; valid: solve, model, embed, cpu"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let number = |s: Option<&str>, default: u32| match s {
            None => Ok(default),
            Some(s) => s
                .trim()
                .parse::<u32>()
                .map_err(|_| err(&format!("{s:?} is not a replica count"))),
        };
        let min_replicas = number(parts.next(), min)?;
        let max_replicas = number(parts.next(), max)?;
        if parts.next().is_some() {
            return Err(err("too many `:` fields"));
        }
        if min_replicas > max_replicas {
            return Err(err("MIN is above MAX"));
        }
        Ok(Pool {
            name: name.to_string(),
            lanes,
            min_replicas,
            max_replicas,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_parse() {
        let p = Pool::parse("llm=solve+model:1:20", 0, 10).unwrap();
        assert_eq!(p.name, "llm");
        assert_eq!(p.lanes, vec![Lane::Solve, Lane::Model]);
        assert_eq!((p.min_replicas, p.max_replicas), (1, 20));
        let p = Pool::parse("judge=model", 0, 10).unwrap();
        assert_eq!((p.min_replicas, p.max_replicas), (0, 10));
        for bad in [
            "model",
            "=model",
            "x=judge",
            "x=model:a:1",
            "x=model:5:1",
            "x=model:1:2:3",
        ] {
            let e = Pool::parse(bad, 0, 10).unwrap_err();
            assert_eq!(e.code(), "autoscale-bad-pool", "{bad}");
        }
        assert_eq!(Pool::per_lane(0, 4).len(), 4);
    }
}
