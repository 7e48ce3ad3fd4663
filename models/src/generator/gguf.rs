//! GGUF files as llama.cpp writes them (format version 2 or 3): a header of
//! typed metadata, a directory of tensors, then their bytes, each aligned to
//! `general.alignment` (32 when absent). The layout is ggml's
//! `docs/gguf.md`.
//!
//! Only what the generator needs: metadata values, and tensors read as
//! stored (4-bit blocks stay blocks) or converted to f32 from the simple
//! types (f32, f16, bf16, Q4_0, Q4_1, Q8_0). Every length read from the
//! file is checked against the file's size before anything is allocated, so
//! a truncated or corrupt file is an error naming it, never an abort.

use crate::error::ModelError;
use crate::floats::{widen, Float};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"GGUF";
const DEFAULT_ALIGNMENT: u64 = 32;

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(Vec<Value>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Value {
    /// A non-negative integer that fits 32 bits, of any integer type.
    pub(crate) fn to_u32(&self) -> Option<u32> {
        let wide: i128 = match *self {
            Value::U8(v) => v.into(),
            Value::I8(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::U64(v) => v.into(),
            Value::I64(v) => v.into(),
            _ => return None,
        };
        u32::try_from(wide).ok()
    }

    /// A float, from either float type.
    pub(crate) fn to_f32(&self) -> Option<f32> {
        match *self {
            Value::F32(v) => Some(v),
            Value::F64(v) => Some(v as f32),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// How a tensor's elements are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One f32, f16 or bf16 per element.
    Float(Float),
    /// Blocks of 32: an f16 scale `d`, then 16 bytes of nibbles; value
    /// `d · (q − 8)`.
    Q4_0,
    /// Blocks of 32: f16 scale `d` and minimum `m`, then 16 bytes of
    /// nibbles; value `d · q + m`.
    Q4_1,
    /// Blocks of 32: an f16 scale `d`, then 32 signed bytes; value `d · q`.
    Q8_0,
}

impl Kind {
    /// The kind of GGML type id `id`, if it is one of the supported ones.
    fn from_id(id: u32) -> Option<Kind> {
        Some(match id {
            0 => Kind::Float(Float::F32),
            1 => Kind::Float(Float::F16),
            2 => Kind::Q4_0,
            3 => Kind::Q4_1,
            8 => Kind::Q8_0,
            30 => Kind::Float(Float::Bf16),
            _ => return None,
        })
    }

    /// Elements per block and bytes per block.
    fn block(self) -> (usize, usize) {
        match self {
            Kind::Float(Float::F32) => (1, 4),
            Kind::Float(Float::F16 | Float::Bf16) => (1, 2),
            Kind::Q4_0 => (32, 18),
            Kind::Q4_1 => (32, 20),
            Kind::Q8_0 => (32, 34),
        }
    }
}

/// Where one tensor lies and how it is stored.
#[derive(Debug, Clone)]
struct Entry {
    /// Dimensions, fastest-varying first (GGML's order).
    dims: Vec<usize>,
    /// The GGML type id.
    type_id: u32,
    /// From the start of the tensor data.
    offset: u64,
}

/// A tensor as stored: `rows × cols` elements of `kind`, row after row
/// (`cols` is the fastest-varying dimension; a vector is one row).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tensor {
    pub(crate) kind: Kind,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) data: Vec<u8>,
}

impl Tensor {
    /// Every element as f32, as GGML dequantises it.
    pub(crate) fn to_f32(&self) -> Vec<f32> {
        let f16 = |b: &[u8]| half::f16::from_le_bytes([b[0], b[1]]).to_f32();
        let blocks = || self.data.chunks_exact(self.kind.block().1);
        match self.kind {
            Kind::Float(float) => widen(float, &self.data),
            Kind::Q4_0 => blocks()
                .flat_map(|b| {
                    let d = f16(b);
                    nibbles(&b[2..18]).map(move |q| (f32::from(q) - 8.0) * d)
                })
                .collect(),
            Kind::Q4_1 => blocks()
                .flat_map(|b| {
                    let (d, m) = (f16(b), f16(&b[2..]));
                    nibbles(&b[4..20]).map(move |q| f32::from(q) * d + m)
                })
                .collect(),
            Kind::Q8_0 => blocks()
                .flat_map(|b| {
                    let d = f16(b);
                    b[2..34].iter().map(move |&q| f32::from(q as i8) * d)
                })
                .collect(),
        }
    }
}

/// A block's 32 nibbles in element order: every byte's low half, then
/// every byte's high half (GGML's layout).
fn nibbles(qs: &[u8]) -> impl Iterator<Item = u8> + '_ {
    qs.iter().map(|q| q & 0x0f).chain(qs.iter().map(|q| q >> 4))
}

/// An open GGUF file: its metadata and tensor directory, read at open;
/// tensors read on request.
pub(crate) struct Gguf {
    path: PathBuf,
    file: File,
    metadata: HashMap<String, Value>,
    tensors: HashMap<String, Entry>,
    /// Where the tensor data starts.
    data_start: u64,
    size: u64,
}

/// Reads the header with a running byte count, so lengths can be checked
/// against what the file still holds.
struct Header<'a> {
    r: BufReader<&'a File>,
    path: &'a Path,
    at: u64,
    size: u64,
    version: u32,
}

impl Header<'_> {
    fn bad(&self, what: impl std::fmt::Display) -> ModelError {
        ModelError::format(
            self.path,
            format!("GGUF header at byte {}: {what}", self.at),
        )
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], ModelError> {
        let mut b = [0u8; N];
        self.r
            .read_exact(&mut b)
            .map_err(|_| self.bad("the file ends inside the header"))?;
        self.at += N as u64;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, ModelError> {
        self.bytes().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, ModelError> {
        self.bytes().map(u64::from_le_bytes)
    }

    /// A count of items of at least `min_bytes` each that must fit in what
    /// is left of the file.
    fn count(&mut self, min_bytes: u64) -> Result<usize, ModelError> {
        let n = self.u64()?;
        let left = self.size.saturating_sub(self.at);
        if n.saturating_mul(min_bytes) > left {
            return Err(self.bad(format!("a count of {n} does not fit the {left} bytes left")));
        }
        usize::try_from(n).map_err(|_| self.bad("count too large"))
    }

    fn string(&mut self) -> Result<String, ModelError> {
        let n = self.count(1)?;
        let mut b = vec![0u8; n];
        self.r
            .read_exact(&mut b)
            .map_err(|_| self.bad("the file ends inside a string"))?;
        self.at += n as u64;
        String::from_utf8(b).map_err(|_| self.bad("a string is not UTF-8"))
    }

    fn value(&mut self, type_id: u32, depth: usize) -> Result<Value, ModelError> {
        Ok(match type_id {
            0 => Value::U8(u8::from_le_bytes(self.bytes()?)),
            1 => Value::I8(i8::from_le_bytes(self.bytes()?)),
            2 => Value::U16(u16::from_le_bytes(self.bytes()?)),
            3 => Value::I16(i16::from_le_bytes(self.bytes()?)),
            4 => Value::U32(self.u32()?),
            5 => Value::I32(i32::from_le_bytes(self.bytes()?)),
            6 => Value::F32(f32::from_le_bytes(self.bytes()?)),
            7 => match self.bytes::<1>()?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                b => return Err(self.bad(format!("bool byte {b}"))),
            },
            8 => Value::String(self.string()?),
            9 => {
                // Arrays of arrays are allowed by the format; deeper than
                // two is not something a model file holds.
                if depth >= 2 {
                    return Err(self.bad("arrays nested deeper than two"));
                }
                let item = self.u32()?;
                let n = self.count(1)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(item, depth + 1)?);
                }
                Value::Array(items)
            }
            10 => Value::U64(self.u64()?),
            11 => Value::I64(i64::from_le_bytes(self.bytes()?)),
            12 => Value::F64(f64::from_le_bytes(self.bytes()?)),
            t => return Err(self.bad(format!("unknown value type {t}"))),
        })
    }
}

impl Gguf {
    /// Opens `path` and reads its metadata and tensor directory.
    pub(crate) fn open(path: &Path) -> Result<Gguf, ModelError> {
        let io = |source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let mut h = Header {
            r: BufReader::with_capacity(1 << 20, &file),
            path,
            at: 0,
            size,
            version: 0,
        };
        if &h.bytes::<4>()? != MAGIC {
            return Err(ModelError::format(path, "not a GGUF file (no GGUF magic)"));
        }
        h.version = h.u32()?;
        if !(2..=3).contains(&h.version) {
            return Err(ModelError::format(
                path,
                format!("GGUF version {} (2 and 3 are read)", h.version),
            ));
        }
        // A tensor's directory entry is at least 8 + 4 + 4 + 8 bytes; a
        // metadata pair at least 8 + 4 + 1.
        let n_tensors = h.u64()?;
        let n_meta = h.count(13)?;
        let mut metadata = HashMap::with_capacity(n_meta);
        for _ in 0..n_meta {
            let key = h.string()?;
            let type_id = h.u32()?;
            // The header's own error, with the key in front.
            let value = h.value(type_id, 0).map_err(|e| match e {
                ModelError::Format { message, .. } => {
                    ModelError::format(path, format!("metadata {key}: {message}"))
                }
                other => other,
            })?;
            metadata.insert(key, value);
        }
        let left = size.saturating_sub(h.at);
        if n_tensors.saturating_mul(24) > left {
            return Err(h.bad(format!("{n_tensors} tensors do not fit the file")));
        }
        let mut tensors = HashMap::with_capacity(n_tensors as usize);
        for _ in 0..n_tensors {
            let name = h.string()?;
            let n_dims = h.u32()?;
            if n_dims > 4 {
                return Err(h.bad(format!("tensor {name} has {n_dims} dimensions")));
            }
            let mut dims = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                let d = h.u64()?;
                dims.push(usize::try_from(d).map_err(|_| h.bad("dimension too large"))?);
            }
            let type_id = h.u32()?;
            let offset = h.u64()?;
            tensors.insert(
                name,
                Entry {
                    dims,
                    type_id,
                    offset,
                },
            );
        }
        let alignment = match metadata.get("general.alignment") {
            None => DEFAULT_ALIGNMENT,
            Some(v) => match v.to_u32() {
                Some(a) if a > 0 && a.is_power_of_two() => u64::from(a),
                _ => {
                    return Err(ModelError::format(
                        path,
                        "general.alignment is not a power of two",
                    ))
                }
            },
        };
        let data_start = h.at.div_ceil(alignment) * alignment;
        Ok(Gguf {
            path: path.to_path_buf(),
            file,
            metadata,
            tensors,
            data_start,
            size,
        })
    }

    /// The metadata value under `key`, if any.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.get(key)
    }

    /// The metadata value under `key`; an error naming the key and the file
    /// when it is missing.
    pub(crate) fn meta(&self, key: &str) -> Result<&Value, ModelError> {
        self.get(key)
            .ok_or_else(|| ModelError::format(&self.path, format!("missing metadata {key}")))
    }

    pub(crate) fn has_tensor(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// Reads the tensor `name` as stored.
    pub(crate) fn tensor(&self, name: &str) -> Result<Tensor, ModelError> {
        let bad = |what: String| ModelError::format(&self.path, format!("tensor {name}: {what}"));
        let e = self
            .tensors
            .get(name)
            .ok_or_else(|| bad("not in the file".into()))?;
        let kind = Kind::from_id(e.type_id).ok_or_else(|| {
            bad(format!(
                "GGML type {} is not one the generator reads (f32, f16, bf16, Q4_0, Q4_1, Q8_0)",
                e.type_id
            ))
        })?;
        let cols = e.dims.first().copied().unwrap_or(1);
        let rows = e
            .dims
            .iter()
            .skip(1)
            .try_fold(1usize, |a, &d| a.checked_mul(d));
        let (per_block, block_bytes) = kind.block();
        let whole_blocks = || bad(format!("dimensions {:?} do not make whole blocks", e.dims));
        let rows = rows.ok_or_else(whole_blocks)?;
        let bytes = rows
            .checked_mul(cols)
            .filter(|n| n.is_multiple_of(per_block))
            .and_then(|n| (n / per_block).checked_mul(block_bytes))
            .ok_or_else(whole_blocks)?;
        if !cols.is_multiple_of(per_block) {
            return Err(bad(format!("rows of {cols} are not whole blocks")));
        }
        let start = self.data_start.saturating_add(e.offset);
        if start.saturating_add(bytes as u64) > self.size {
            return Err(bad("lies past the end of the file".into()));
        }
        let mut data = vec![0u8; bytes];
        let mut f = &self.file;
        f.seek(SeekFrom::Start(start))
            .and_then(|_| f.read_exact(&mut data))
            .map_err(|source| ModelError::Io {
                path: self.path.clone(),
                source,
            })?;
        Ok(Tensor {
            kind,
            rows,
            cols,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A GGUF written by hand: the bytes the format lays down.
    struct Writer(Vec<u8>);

    impl Writer {
        fn u32(&mut self, v: u32) {
            self.0.extend(v.to_le_bytes());
        }

        fn u64(&mut self, v: u64) {
            self.0.extend(v.to_le_bytes());
        }

        fn string(&mut self, s: &str) {
            self.u64(s.len() as u64);
            self.0.extend(s.as_bytes());
        }

        /// A directory entry: name, dimensions, GGML type, data offset.
        fn entry(&mut self, name: &str, dims: &[u64], type_id: u32, offset: u64) {
            self.string(name);
            self.u32(dims.len() as u32);
            dims.iter().for_each(|&d| self.u64(d));
            self.u32(type_id);
            self.u64(offset);
        }

        fn align(&mut self) {
            while !self.0.len().is_multiple_of(32) {
                self.0.push(0);
            }
        }
    }

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    /// Two metadata pairs and two tensors: a 2 × 32 Q8_0 matrix and a
    /// 3-element f32 vector.
    fn small() -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.0.extend(b"GGUF");
        w.u32(3);
        w.u64(2);
        w.u64(2);
        w.string("llama.block_count");
        w.u32(4);
        w.u32(30);
        w.string("tokenizer.ggml.tokens");
        w.u32(9);
        w.u32(8);
        w.u64(2);
        w.string("a");
        w.string("b");
        w.entry("m", &[32, 2], 8, 0);
        w.entry("v", &[3], 0, 96);
        w.align();
        for row in 0..2i8 {
            w.0.extend(half::f16::from_f32(0.5).to_le_bytes());
            w.0.extend((0..32i8).map(|i| (i - 16 + row) as u8));
        }
        w.align();
        for x in [1.5f32, -2.0, 0.25] {
            w.0.extend(x.to_le_bytes());
        }
        w.0
    }

    #[test]
    fn reads_metadata_and_tensors_as_laid_down() {
        let f = file(&small());
        let g = Gguf::open(f.path()).unwrap();
        assert_eq!(g.meta("llama.block_count").unwrap().to_u32(), Some(30));
        let tokens = g.meta("tokenizer.ggml.tokens").unwrap().as_array().unwrap();
        assert_eq!(
            tokens.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            [Some("a"), Some("b")]
        );
        let m = g.tensor("m").unwrap();
        assert_eq!((m.kind, m.rows, m.cols), (Kind::Q8_0, 2, 32));
        let values = m.to_f32();
        assert_eq!(values[0], -8.0);
        assert_eq!(values[32 + 31], 8.0);
        let v = g.tensor("v").unwrap();
        assert_eq!((v.rows, v.cols), (1, 3));
        assert_eq!(v.to_f32(), [1.5, -2.0, 0.25]);
        let missing = g.meta("llama.context_length").unwrap_err().to_string();
        assert!(
            missing.contains("missing metadata llama.context_length"),
            "{missing}"
        );
    }

    #[test]
    fn a_cut_or_corrupt_file_is_an_error_naming_it() {
        let whole = small();
        for cut in [3, 20, 60, whole.len() - 1] {
            let f = file(&whole[..cut]);
            let err = Gguf::open(f.path()).and_then(|g| {
                g.tensor("m")?;
                g.tensor("v")
            });
            let msg = err.expect_err("cut file").to_string();
            assert!(
                msg.contains(&f.path().display().to_string()),
                "{cut}: {msg}"
            );
        }
        // A string length far beyond the file is refused before allocating.
        let mut huge = whole.clone();
        huge[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        let f = file(&huge);
        let msg = Gguf::open(f.path()).err().expect("huge length").to_string();
        assert!(msg.contains("does not fit"), "{msg}");
        // An unknown value type is named with its key, the path once.
        let mut typed = whole.clone();
        typed[24 + 8 + 17..24 + 8 + 21].copy_from_slice(&99u32.to_le_bytes());
        let f = file(&typed);
        let msg = Gguf::open(f.path()).err().expect("bad type").to_string();
        assert!(
            msg.contains("metadata llama.block_count: GGUF header"),
            "{msg}"
        );
        assert_eq!(
            msg.matches(&f.path().display().to_string()).count(),
            1,
            "{msg}"
        );
        let mut other = whole;
        other[..4].copy_from_slice(b"GGML");
        let f = file(&other);
        let msg = Gguf::open(f.path()).err().expect("no magic").to_string();
        assert!(msg.contains("not a GGUF file"), "{msg}");
    }

    #[test]
    fn nibbles_read_low_half_first_as_ggml_lays_them() {
        let mut block = Vec::new();
        block.extend(half::f16::from_f32(2.0).to_le_bytes());
        block.extend(half::f16::from_f32(-1.0).to_le_bytes());
        block.extend((0..16u8).map(|i| i | ((15 - i) << 4)));
        let t = Tensor {
            kind: Kind::Q4_1,
            rows: 1,
            cols: 32,
            data: block.clone(),
        };
        let v = t.to_f32();
        assert_eq!(v[0], -1.0);
        assert_eq!(v[15], 29.0);
        assert_eq!(v[16], 29.0);
        assert_eq!(v[31], -1.0);
        let q4_0 = Tensor {
            kind: Kind::Q4_0,
            data: [&block[..2], &block[4..]].concat(),
            ..t
        };
        assert_eq!(q4_0.to_f32()[0], -16.0);
        assert_eq!(q4_0.to_f32()[16], 14.0);
    }

    /// The same value, read by us and by candle's independent reader.
    fn same(ours: &Value, theirs: &candle_core::quantized::gguf_file::Value) -> bool {
        use candle_core::quantized::gguf_file::Value as V;
        match (ours, theirs) {
            (Value::U8(a), V::U8(b)) => a == b,
            (Value::I8(a), V::I8(b)) => a == b,
            (Value::U16(a), V::U16(b)) => a == b,
            (Value::I16(a), V::I16(b)) => a == b,
            (Value::U32(a), V::U32(b)) => a == b,
            (Value::I32(a), V::I32(b)) => a == b,
            (Value::U64(a), V::U64(b)) => a == b,
            (Value::I64(a), V::I64(b)) => a == b,
            (Value::F32(a), V::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), V::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), V::Bool(b)) => a == b,
            (Value::String(a), V::String(b)) => a == b,
            (Value::Array(a), V::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
            }
            _ => false,
        }
    }

    /// Every metadata value and every tensor of the pinned model, read by
    /// this reader and by candle's: the same values, the same stored bytes
    /// and the same floats when dequantised.
    #[test]
    fn the_pinned_model_reads_as_candle_reads_it() {
        use candle_core::quantized::gguf_file;
        use candle_core::Device;
        let home = std::env::var_os("ADFARM_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(crate::assets::default_home);
        crate::assets::ensure(&home, &[&crate::assets::SMOLLM2]).expect("assets fetched");
        let path = crate::assets::generator_gguf(&home);
        let ours = Gguf::open(&path).unwrap();
        let mut f = File::open(&path).unwrap();
        let theirs = gguf_file::Content::read(&mut f).unwrap();
        assert_eq!(ours.metadata.len(), theirs.metadata.len());
        for (key, v) in &theirs.metadata {
            assert!(same(ours.meta(key).unwrap(), v), "{key}");
        }
        assert_eq!(ours.tensors.len(), theirs.tensor_infos.len());
        for name in theirs.tensor_infos.keys() {
            let q = theirs.tensor(&mut f, name, &Device::Cpu).unwrap();
            let t = ours.tensor(name).unwrap();
            assert_eq!(t.data, q.data().unwrap().as_ref(), "{name}: bytes");
            let dims = q.shape().dims().to_vec();
            assert_eq!(dims.last(), Some(&t.cols), "{name}: row length");
            assert_eq!(
                dims.iter().product::<usize>(),
                t.rows * t.cols,
                "{name}: size"
            );
            let floats = q
                .dequantize(&Device::Cpu)
                .and_then(|x| x.flatten_all())
                .and_then(|x| x.to_vec1::<f32>())
                .unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&t.to_f32()), bits(&floats), "{name}: values");
        }
    }
}
