//! A minimal, read-only reader of SQLite database files: enough to scan the rows of an
//! ordinary (rowid) table, which is all the Gene Ontology conversion needs from Debian's
//! `GO.sqlite`, without linking the SQLite C library or requiring `sqlite3`/`python3` on the
//! machine.
//!
//! It follows the documented file format (<https://www.sqlite.org/fileformat2.html>): the
//! 100-byte header, table b-trees (interior pages 0x05, leaf pages 0x0d), cell payloads with
//! overflow chains, and the record format. It reads `sqlite_schema` (page 1) to find a table's
//! root page. Not supported, and refused with an error rather than misread: `WITHOUT ROWID`
//! tables, UTF-16 databases, and databases with a pending write-ahead log (the file alone is
//! then not the whole database — read-only package data never has one).
//!
//! Pitfall: a column declared `INTEGER PRIMARY KEY` is an alias of the rowid and is stored as
//! NULL in the record; [`Row::rowid`] holds its value.

use std::path::Path;

/// Why a database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SqliteError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The bytes are not a database this reader understands.
    #[error("not a readable SQLite database: {0}")]
    Format(String),
    /// The schema has no such table.
    #[error("no table `{0}` in the database")]
    NoTable(String),
}

/// One column value of a record.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    /// SQL NULL (also what an `INTEGER PRIMARY KEY` column stores; see [`Row::rowid`]).
    Null,
    /// A 64-bit signed integer.
    Integer(i64),
    /// An IEEE double.
    Real(f64),
    /// UTF-8 text (invalid UTF-8 is replaced, never an error).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl SqlValue {
    /// The integer, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            SqlValue::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The text, if this is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            SqlValue::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// One row of a rowid table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The rowid (the value of an `INTEGER PRIMARY KEY` column, if the table has one).
    pub rowid: i64,
    /// The record's values in column order.
    pub values: Vec<SqlValue>,
}

/// A whole database file held in memory.
#[derive(Debug)]
pub struct Database {
    bytes: Vec<u8>,
    page_size: usize,
    usable: usize,
}

type Result<T> = std::result::Result<T, SqliteError>;

fn bad<T>(why: impl Into<String>) -> Result<T> {
    Err(SqliteError::Format(why.into()))
}

impl Database {
    /// Reads a database file; checks its header.
    pub fn open(path: &Path) -> Result<Database> {
        let bytes = std::fs::read(path).map_err(|source| SqliteError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        if Path::new(&wal).metadata().is_ok_and(|m| m.len() > 0) {
            return bad("the database has a write-ahead log; checkpoint it first");
        }
        Database::from_bytes(bytes)
    }

    /// Checks the header of a database image.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Database> {
        if bytes.len() < 100 || &bytes[..16] != b"SQLite format 3\0" {
            return bad("missing the `SQLite format 3` header");
        }
        let raw = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        let page_size = if raw == 1 { 65536 } else { raw };
        if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
            return bad(format!("page size {page_size}"));
        }
        let reserved = bytes[20] as usize;
        let usable = page_size - reserved;
        if usable < 480 {
            return bad("usable page size below 480 bytes");
        }
        let encoding = u32::from_be_bytes([bytes[56], bytes[57], bytes[58], bytes[59]]);
        if encoding > 1 {
            return bad("text encoding is UTF-16; only UTF-8 databases are read");
        }
        Ok(Database {
            bytes,
            page_size,
            usable,
        })
    }

    fn page(&self, number: u32) -> Result<&[u8]> {
        let n = number as usize;
        if n == 0 || n * self.page_size > self.bytes.len() {
            return bad(format!("page {number} is outside the file"));
        }
        Ok(&self.bytes[(n - 1) * self.page_size..n * self.page_size])
    }

    /// Every row of the table b-tree rooted at `root`, in rowid order.
    fn scan_tree(&self, root: u32) -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        // Depth-first, left to right; a page count bound guards against cycles.
        let mut stack = vec![root];
        let mut visited = 0usize;
        let max_pages = self.bytes.len() / self.page_size;
        while let Some(number) = stack.pop() {
            visited += 1;
            if visited > max_pages {
                return bad("b-tree pages form a cycle");
            }
            let page = self.page(number)?;
            let base = if number == 1 { 100 } else { 0 };
            let kind = page[base];
            let cells = u16::from_be_bytes([page[base + 3], page[base + 4]]) as usize;
            match kind {
                0x05 => {
                    let right = be_u32(page, base + 8)?;
                    let mut children = Vec::with_capacity(cells + 1);
                    for i in 0..cells {
                        let off = cell_offset(page, base + 12, i)?;
                        children.push(be_u32(page, off)?);
                    }
                    children.push(right);
                    // Pushed in reverse so the leftmost child is scanned first.
                    stack.extend(children.into_iter().rev());
                }
                0x0d => {
                    for i in 0..cells {
                        let off = cell_offset(page, base + 8, i)?;
                        rows.push(self.leaf_cell(page, off)?);
                    }
                }
                0x02 | 0x0a => return bad("an index b-tree where a table was expected (WITHOUT ROWID tables are not supported)"),
                other => return bad(format!("page {number} has unknown type {other:#04x}")),
            }
        }
        Ok(rows)
    }

    /// Decodes the table-leaf cell at `off`: payload size, rowid, payload (following the
    /// overflow chain when it does not fit in the page).
    fn leaf_cell(&self, page: &[u8], off: usize) -> Result<Row> {
        let (payload_len, n1) = varint(page, off)?;
        let (rowid, n2) = varint(page, off + n1)?;
        let start = off + n1 + n2;
        let p = payload_len as usize;
        let u = self.usable;
        let x = u - 35;
        let local = if p <= x {
            p
        } else {
            let m = ((u - 12) * 32 / 255) - 23;
            let k = m + ((p - m) % (u - 4));
            if k <= x {
                k
            } else {
                m
            }
        };
        let mut payload = slice(page, start, local)?.to_vec();
        if local < p {
            let mut next = be_u32(page, start + local)?;
            let mut hops = 0usize;
            while payload.len() < p {
                hops += 1;
                if next == 0 || hops > self.bytes.len() / self.page_size {
                    return bad("overflow chain ends early or loops");
                }
                let ov = self.page(next)?;
                let take = (p - payload.len()).min(u - 4);
                payload.extend_from_slice(slice(ov, 4, take)?);
                next = be_u32(ov, 0)?;
            }
        }
        Ok(Row {
            rowid: rowid as i64,
            values: record(&payload)?,
        })
    }

    /// Every row of table `name`, in rowid order.
    pub fn table(&self, name: &str) -> Result<Vec<Row>> {
        let root = self.root_page(name)?;
        self.scan_tree(root)
    }

    /// The root page of table `name`, from the schema table on page 1.
    fn root_page(&self, name: &str) -> Result<u32> {
        for row in self.scan_tree(1)? {
            // sqlite_schema(type, name, tbl_name, rootpage, sql)
            let v = &row.values;
            if v.first().and_then(SqlValue::as_str) == Some("table")
                && v.get(1).and_then(SqlValue::as_str) == Some(name)
            {
                if let Some(sql) = v.get(4).and_then(SqlValue::as_str) {
                    if sql.to_ascii_uppercase().contains("WITHOUT ROWID") {
                        return bad(format!("table `{name}` is WITHOUT ROWID"));
                    }
                }
                return match v.get(3).and_then(SqlValue::as_i64) {
                    Some(r) if r > 0 => Ok(r as u32),
                    _ => bad(format!("table `{name}` has no root page")),
                };
            }
        }
        Err(SqliteError::NoTable(name.to_string()))
    }
}

fn slice(page: &[u8], start: usize, len: usize) -> Result<&[u8]> {
    page.get(start..start + len)
        .map_or_else(|| bad("a cell runs past the end of its page"), Ok)
}

fn be_u32(page: &[u8], at: usize) -> Result<u32> {
    let b = slice(page, at, 4)?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn cell_offset(page: &[u8], array: usize, i: usize) -> Result<usize> {
    let b = slice(page, array + 2 * i, 2)?;
    Ok(u16::from_be_bytes([b[0], b[1]]) as usize)
}

/// SQLite's big-endian varint: 1 to 9 bytes, 7 bits each, the ninth byte contributing 8.
fn varint(buf: &[u8], at: usize) -> Result<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let Some(&b) = buf.get(at + i) else {
            return bad("a varint runs past the end of its buffer");
        };
        if i == 8 {
            return Ok(((v << 8) | b as u64, 9));
        }
        v = (v << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    unreachable!("the loop returns by the ninth byte")
}

/// Decodes a record: header size, serial types, then the values.
fn record(payload: &[u8]) -> Result<Vec<SqlValue>> {
    let (header_len, mut pos) = varint(payload, 0)?;
    let header_len = header_len as usize;
    if header_len > payload.len() {
        return bad("record header longer than its payload");
    }
    let mut types = Vec::new();
    while pos < header_len {
        let (t, n) = varint(payload, pos)?;
        types.push(t);
        pos += n;
    }
    let mut body = header_len;
    let mut values = Vec::with_capacity(types.len());
    for t in types {
        let int = |len: usize, body: usize| -> Result<i64> {
            let b = slice(payload, body, len)?;
            // Sign-extend a big-endian two's-complement integer of `len` bytes.
            let mut v: i64 = if b[0] & 0x80 != 0 { -1 } else { 0 };
            for &byte in b {
                v = (v << 8) | byte as i64;
            }
            Ok(v)
        };
        let (value, len) = match t {
            0 => (SqlValue::Null, 0),
            1 => (SqlValue::Integer(int(1, body)?), 1),
            2 => (SqlValue::Integer(int(2, body)?), 2),
            3 => (SqlValue::Integer(int(3, body)?), 3),
            4 => (SqlValue::Integer(int(4, body)?), 4),
            5 => (SqlValue::Integer(int(6, body)?), 6),
            6 => (SqlValue::Integer(int(8, body)?), 8),
            7 => {
                let b = slice(payload, body, 8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                (SqlValue::Real(f64::from_be_bytes(a)), 8)
            }
            8 => (SqlValue::Integer(0), 0),
            9 => (SqlValue::Integer(1), 0),
            10 | 11 => return bad("reserved serial type in a record"),
            n if n % 2 == 0 => {
                let len = ((n - 12) / 2) as usize;
                (SqlValue::Blob(slice(payload, body, len)?.to_vec()), len)
            }
            n => {
                let len = ((n - 13) / 2) as usize;
                let text = String::from_utf8_lossy(slice(payload, body, len)?).into_owned();
                (SqlValue::Text(text), len)
            }
        };
        values.push(value);
        body += len;
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_of_every_length() {
        assert_eq!(varint(&[0x05], 0).ok(), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0).ok(), Some((128, 2)));
        assert_eq!(varint(&[0xff; 9], 0).ok(), Some((u64::MAX, 9)));
        assert!(varint(&[0x81], 0).is_err());
    }

    #[test]
    fn records_decode_every_serial_type() {
        // header: len 7, types NULL, i8, i16, 0, 1, text(3)
        let payload = [7, 0, 1, 2, 8, 9, 19, 0xff, 0x01, 0x00, b'a', b'b', b'c'];
        let v = record(&payload).expect("record");
        assert_eq!(
            v,
            vec![
                SqlValue::Null,
                SqlValue::Integer(-1),
                SqlValue::Integer(256),
                SqlValue::Integer(0),
                SqlValue::Integer(1),
                SqlValue::Text("abc".into()),
            ]
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Database::from_bytes(vec![0; 50]).is_err());
        let mut b = b"SQLite format 3\0".to_vec();
        b.resize(4096, 0);
        b[16] = 0x10; // page size 4096
        let db = Database::from_bytes(b).expect("header ok");
        assert!(db.table("anything").is_err());
    }
}
