//! The GEM-Bench data as the `gembench==1.0.9` wheel ships it: the two
//! prompt datasets (MT-Human, LM-Market), the chatbot ad database
//! (`products.json`, `topics.json`) and CA-Prod (see [`super::caprod`]).
//! Every count the benchmark depends on is checked at load time, so a
//! changed package fails loudly, naming the file, instead of silently
//! producing different numbers.

use super::caprod::{self, CaProd};
use adfarm_suite::DataError;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Path of the dataset folder inside the unpacked wheel.
pub const DATASET_DIR: &str = "GemBench/benchmarking/dataset";

/// What to tell a user whose assets are missing.
pub const FETCH_HINT: &str = "run `adfarm assets fetch` to download and unpack gembench-1.0.9";

/// Expected sizes of the 1.0.9 package; a mismatch is a load error.
pub mod expected {
    /// MT-Human prompts.
    pub const MT_HUMAN: usize = 10;
    /// LM-Market prompts.
    pub const LM_MARKET: usize = 100;
    /// Distinct LM-Market prompts.
    pub const LM_MARKET_DISTINCT: usize = 93;
    /// Ads (name/url/desc triples) in `products.json`.
    pub const ADS: usize = 6_558;
    /// Topics of `products.json` with no ads.
    pub const EMPTY_AD_LISTS: usize = 16;
    /// Top-level topics in `topics.json`.
    pub const TOPICS: usize = 26;
    /// Subtopics in `topics.json`.
    pub const SUBTOPICS: usize = 600;
}

/// One prompt with its own category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Prompt text.
    pub text: String,
    /// Category from `categories.json`, aligned by index.
    pub category: String,
}

/// One ad of the chatbot database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ad {
    /// Stable id: `<topic>#<index in that topic's list>`.
    pub id: String,
    /// Product or brand name.
    pub name: String,
    /// Landing page.
    pub url: String,
    /// One-line description.
    pub desc: String,
    /// The `products.json` key it is listed under.
    pub topic: String,
}

impl Ad {
    /// The text that is embedded for retrieval: `name: desc.`
    pub fn embed_text(&self) -> String {
        embed_text(&self.name, &self.desc)
    }
}

/// `name: desc.` with exactly one final period, the form both the reference
/// and AdFarm embed ads in.
pub fn embed_text(name: &str, desc: &str) -> String {
    format!("{name}: {}.", desc.trim().trim_end_matches('.'))
}

/// An ad's `(name, url, desc)` as `products.json` lists them.
pub type AdFields = (String, String, String);

/// The chatbot ad database: the topic tree and the ads per topic.
#[derive(Debug, Clone, Default)]
pub struct AdDb {
    /// Top-level topics with their subtopics, in file order.
    pub topics: Vec<(String, Vec<String>)>,
    /// Ads per `products.json` key (topics and subtopics), in file order.
    pub lists: Vec<(String, Vec<Ad>)>,
    by_key: HashMap<String, usize>,
}

impl AdDb {
    /// A database from a topic tree and `(key, [(name, url, desc)])` lists;
    /// ids are assigned as the loader does.
    pub fn new(topics: Vec<(String, Vec<String>)>, lists: Vec<(String, Vec<AdFields>)>) -> AdDb {
        let lists: Vec<(String, Vec<Ad>)> = lists
            .into_iter()
            .map(|(key, ads)| {
                let ads = ads
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, url, desc))| Ad {
                        id: format!("{key}#{i}"),
                        name,
                        url,
                        desc,
                        topic: key.clone(),
                    })
                    .collect();
                (key, ads)
            })
            .collect();
        let by_key = lists
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        AdDb {
            topics,
            lists,
            by_key,
        }
    }

    /// The ads listed under `key` (a topic or subtopic), if the key exists.
    pub fn ads(&self, key: &str) -> Option<&[Ad]> {
        self.by_key.get(key).map(|&i| self.lists[i].1.as_slice())
    }

    /// Every ad, in file order.
    pub fn all(&self) -> impl Iterator<Item = &Ad> {
        self.lists.iter().flat_map(|(_, ads)| ads.iter())
    }

    /// The ad with `id`.
    pub fn get(&self, id: &str) -> Option<&Ad> {
        let (key, idx) = id.rsplit_once('#')?;
        self.ads(key)?.get(idx.parse::<usize>().ok()?)
    }

    /// Ads with distinct retrieval text, first occurrence kept: the
    /// database lists some brands several times, and identical texts would
    /// fill the top-t with copies of one ad.
    pub fn retrieval_pool(&self) -> Vec<&Ad> {
        let mut seen = std::collections::HashSet::new();
        self.all().filter(|a| seen.insert(a.embed_text())).collect()
    }
}

/// All GEM-Bench data, loaded and checked.
#[derive(Debug, Clone)]
pub struct GemData {
    /// MT-Human prompts.
    pub mt_human: Vec<Query>,
    /// LM-Market prompts (with repeats, as shipped).
    pub lm_market: Vec<Query>,
    /// The chatbot ad database.
    pub ads: AdDb,
    /// CA-Prod.
    pub ca_prod: CaProd,
}

impl GemData {
    /// Loads everything under `root`, the folder that contains `GemBench/`.
    ///
    /// # Errors
    /// [`DataError::Files`] naming the file that is missing, unreadable or
    /// whose contents differ from gembench 1.0.9.
    pub fn load(root: &Path) -> Result<GemData, DataError> {
        let dir = root.join(DATASET_DIR);
        if !dir.is_dir() {
            return Err(files_err(&dir, format!("not found; {FETCH_HINT}")));
        }
        let mt_human = load_prompts(&dir.join("MT_Human"), expected::MT_HUMAN, None)?;
        let lm_market = load_prompts(
            &dir.join("LM_Market"),
            expected::LM_MARKET,
            Some(expected::LM_MARKET_DISTINCT),
        )?;
        let ads = load_ad_db(&dir.join("product"))?;
        let ca_prod = caprod::load(&dir.join("CA_Prod/src/dataset"))?;
        Ok(GemData {
            mt_human,
            lm_market,
            ads,
            ca_prod,
        })
    }
}

/// A [`DataError::Files`] for `path`.
pub(crate) fn files_err(path: &Path, reason: impl Into<String>) -> DataError {
    DataError::Files {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// Reads a file, mapping a missing file to the fetch hint.
pub(crate) fn read(path: &Path) -> Result<String, DataError> {
    std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            files_err(path, format!("not found; {FETCH_HINT}"))
        } else {
            files_err(path, e.to_string())
        }
    })
}

fn parse_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, DataError> {
    serde_json::from_str(&read(path)?).map_err(|e| files_err(path, format!("invalid JSON: {e}")))
}

fn count_err(path: &Path, what: &str, want: usize, got: usize) -> DataError {
    files_err(
        path,
        format!("expected {want} {what} (gembench 1.0.9), found {got}"),
    )
}

fn load_prompts(
    dir: &Path,
    want: usize,
    want_distinct: Option<usize>,
) -> Result<Vec<Query>, DataError> {
    let p_path = dir.join("prompts.json");
    let c_path = dir.join("categories.json");
    let prompts: Vec<String> = parse_json(&p_path)?;
    let cats: Vec<String> = parse_json(&c_path)?;
    if prompts.len() != want {
        return Err(count_err(&p_path, "prompts", want, prompts.len()));
    }
    if cats.len() != prompts.len() {
        return Err(count_err(&c_path, "categories", prompts.len(), cats.len()));
    }
    if let Some(d) = want_distinct {
        let got = prompts
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len();
        if got != d {
            return Err(count_err(&p_path, "distinct prompts", d, got));
        }
    }
    Ok(prompts
        .into_iter()
        .zip(cats)
        .map(|(text, category)| Query { text, category })
        .collect())
}

/// A JSON object read in file order (serde_json's `Map` sorts keys, and the
/// topic order is what the Ad-Chat prompts show the model).
struct Ordered<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, T>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(serde::Deserialize)]
struct RawList {
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    urls: Vec<String>,
    #[serde(default)]
    descs: Vec<String>,
}

fn load_ad_db(dir: &Path) -> Result<AdDb, DataError> {
    let t_path = dir.join("topics.json");
    let topics: Ordered<Ordered<IgnoredAny>> = parse_json(&t_path)?;
    let topics: Vec<(String, Vec<String>)> = topics
        .0
        .into_iter()
        .map(|(t, subs)| (t, subs.0.into_iter().map(|(s, _)| s).collect()))
        .collect();
    let n_sub: usize = topics.iter().map(|(_, s)| s.len()).sum();
    if topics.len() != expected::TOPICS {
        return Err(count_err(&t_path, "topics", expected::TOPICS, topics.len()));
    }
    if n_sub != expected::SUBTOPICS {
        return Err(count_err(&t_path, "subtopics", expected::SUBTOPICS, n_sub));
    }

    let p_path = dir.join("products.json");
    let raw: Ordered<RawList> = parse_json(&p_path)?;
    let mut lists = Vec::with_capacity(raw.0.len());
    for (key, l) in raw.0 {
        if l.names.len() != l.urls.len() || l.names.len() != l.descs.len() {
            return Err(files_err(
                &p_path,
                format!(
                    "topic {key:?}: {} names, {} urls, {} descs (must be equal)",
                    l.names.len(),
                    l.urls.len(),
                    l.descs.len()
                ),
            ));
        }
        let ads = l
            .names
            .into_iter()
            .zip(l.urls)
            .zip(l.descs)
            .map(|((n, u), d)| (n, u, d))
            .collect();
        lists.push((key, ads));
    }
    let db = AdDb::new(topics, lists);
    let n_ads = db.all().count();
    let n_empty = db.lists.iter().filter(|(_, a)| a.is_empty()).count();
    if n_ads != expected::ADS {
        return Err(count_err(&p_path, "ads", expected::ADS, n_ads));
    }
    if n_empty != expected::EMPTY_AD_LISTS {
        return Err(count_err(
            &p_path,
            "empty topics",
            expected::EMPTY_AD_LISTS,
            n_empty,
        ));
    }
    Ok(db)
}

/// The default asset folder for gembench 1.0.9 under a home directory:
/// `<home>/.cache/adfarm/assets/gembench-1.0.9`.
pub fn default_dir(home: &Path) -> PathBuf {
    home.join(".cache/adfarm/assets")
        .join(crate::assets::GEMBENCH.dir_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_text_has_one_final_period() {
        assert_eq!(embed_text("A", "Good stuff."), "A: Good stuff.");
        assert_eq!(embed_text("A", " Good stuff "), "A: Good stuff.");
    }

    #[test]
    fn ordered_map_keeps_file_order() {
        let m: Ordered<u8> = serde_json::from_str(r#"{"b":1,"a":2,"c":3}"#).unwrap();
        let keys: Vec<_> = m.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
    }

    #[test]
    fn missing_root_names_the_folder_and_the_fix() {
        let err = GemData::load(Path::new("/nonexistent/gem")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("/nonexistent/gem/GemBench"), "{msg}");
        assert!(msg.contains("adfarm assets fetch"), "{msg}");
    }

    #[test]
    fn ad_ids_round_trip() {
        let db = AdDb::new(
            vec![],
            vec![(
                "Topic #x".into(),
                vec![("N".into(), "u".into(), "d".into())],
            )],
        );
        assert_eq!(db.get("Topic #x#0").map(|a| a.name.as_str()), Some("N"));
        assert!(db.get("Topic #x#1").is_none());
        assert!(db.get("nope").is_none());
    }
}
