//! The file connectors' reads and writes: a regular file directly on the task's thread, as
//! Java's file tasks do on theirs; anything else (standard input and output, a named pipe)
//! through Tokio, where a read or write may wait indefinitely without holding a worker thread.
//!
//! Why not Tokio for regular files too: Tokio runs every file read and write on its blocking
//! pool and wakes the task when it is done, and that hand-off cost more than the read or write
//! itself, which goes to the page cache. Measured on 1,000,000 lines here: the sink of W2
//! (`bench/`) went from about 880,000 to 1,020,000 records/s, the source of W1 from about
//! 614,000 to 735,000.

use std::io::{BufRead, Write};
use std::path::Path;

use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

const BUFFER: usize = 64 * 1024;

/// Whether `path` names a regular file (following links); false when it cannot be looked at.
fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// A regular file read through a buffer of [`BUFFER`] bytes, which it gives back while the file
/// has nothing more to read: a worker with many idle file sources held 64 KiB for each.
pub(crate) struct FileLines {
    /// Read through a buffer of no capacity while idle. Always present between calls; taken
    /// only to swap the buffer.
    reader: Option<std::io::BufReader<std::fs::File>>,
}

impl FileLines {
    fn new(file: std::fs::File) -> Self {
        FileLines {
            reader: Some(std::io::BufReader::with_capacity(BUFFER, file)),
        }
    }

    fn reader(&mut self) -> std::io::Result<&mut std::io::BufReader<std::fs::File>> {
        self.reader
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the file was lost while swapping its buffer"))
    }

    /// Replaces the buffer with one of `capacity` bytes when the current one holds nothing.
    fn rebuffer(&mut self, capacity: usize) {
        if self
            .reader
            .as_ref()
            .is_some_and(|r| r.capacity() == capacity)
        {
            return;
        }
        if let Some(reader) = self.reader.take() {
            self.reader = Some(if reader.buffer().is_empty() {
                std::io::BufReader::with_capacity(capacity, reader.into_inner())
            } else {
                reader
            });
        }
    }

    fn read_until_newline(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        use std::io::Seek;
        let reader = self.reader()?;
        if reader.capacity() == 0 {
            // Idle: look at the file's length before making a buffer for nothing.
            let position = reader.stream_position()?;
            if reader.get_ref().metadata()?.len() <= position {
                return Ok(0);
            }
            self.rebuffer(BUFFER);
        }
        read_line(self.reader()?, buf)
    }

    fn seek(&mut self, position: u64) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        self.reader()?.seek(SeekFrom::Start(position)).map(|_| ())
    }
}

/// `BufRead::read_until(b'\n', buf)` with the memchr crate's vectorised search: the standard
/// library's search goes a word at a time, which was a fifth of the file source's poll in W1's
/// profile (`bench/profiles/w1-source-pipeline.md`).
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (done, used) = match memchr::memchr(b'\n', available) {
            Some(end) => {
                buf.extend_from_slice(&available[..=end]);
                (true, end + 1)
            }
            None => {
                buf.extend_from_slice(available);
                (available.is_empty(), available.len())
            }
        };
        reader.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

/// Lines read from a file or from standard input.
pub(crate) enum LineInput {
    File(FileLines),
    /// A named pipe or another file that is not a regular one.
    Special(tokio::io::BufReader<tokio::fs::File>),
    Stdin(tokio::io::BufReader<tokio::io::Stdin>),
}

impl LineInput {
    pub(crate) fn stdin() -> Self {
        LineInput::Stdin(tokio::io::BufReader::with_capacity(
            BUFFER,
            tokio::io::stdin(),
        ))
    }

    pub(crate) async fn open(path: &Path) -> std::io::Result<Self> {
        Ok(if is_regular(path) {
            LineInput::File(FileLines::new(std::fs::File::open(path)?))
        } else {
            LineInput::Special(tokio::io::BufReader::with_capacity(
                BUFFER,
                tokio::fs::File::open(path).await?,
            ))
        })
    }

    /// Moves to byte `position` of the file.
    pub(crate) async fn seek(&mut self, position: u64) -> std::io::Result<()> {
        use std::io::SeekFrom;
        match self {
            LineInput::File(file) => file.seek(position),
            LineInput::Special(reader) => {
                tokio::io::AsyncSeekExt::seek(reader, SeekFrom::Start(position))
                    .await
                    .map(|_| ())
            }
            LineInput::Stdin(_) => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "standard input has no positions",
            )),
        }
    }

    /// Appends up to and including the next `\n` to `buf`; 0 at the end of the input.
    pub(crate) async fn read_until_newline(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        match self {
            LineInput::File(file) => file.read_until_newline(buf),
            LineInput::Special(reader) => reader.read_until(b'\n', buf).await,
            LineInput::Stdin(reader) => reader.read_until(b'\n', buf).await,
        }
    }
}

impl LineInput {
    /// Gives the read buffer back while the task waits for more input (regular files only;
    /// nothing read ahead is lost).
    pub(crate) fn release_buffer(&mut self) {
        if let LineInput::File(file) = self {
            file.rebuffer(0);
        }
    }
}

/// A worker killed inside a write can leave the file's last line cut short; its record was
/// not committed and comes again, so the next line must not be glued to the fragment.
fn end_a_torn_line(file: &mut std::fs::File, path: &Path) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        tracing::warn!(
            file = %path.display(),
            "The file does not end with a line break (a write cut short by a crash?); starting a new line"
        );
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// Lines appended to a file or written to standard output.
pub(crate) enum LineOutput {
    File(std::io::BufWriter<std::fs::File>),
    Stream(tokio::io::BufWriter<Box<dyn AsyncWrite + Unpin + Send>>),
}

impl LineOutput {
    pub(crate) fn stdout() -> Self {
        LineOutput::Stream(tokio::io::BufWriter::with_capacity(
            BUFFER,
            Box::new(tokio::io::stdout()),
        ))
    }

    /// Opens `path` for appending, creating it when missing.
    pub(crate) async fn append(path: &Path) -> std::io::Result<Self> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        // A missing file will be a regular one; opening a named pipe could wait for a reader.
        if std::fs::metadata(path).map_or(true, |m| m.is_file()) {
            // Read too, to look at the last byte.
            let mut file = options.clone().read(true).open(path)?;
            end_a_torn_line(&mut file, path)?;
            return Ok(LineOutput::File(std::io::BufWriter::with_capacity(
                BUFFER, file,
            )));
        }
        let file = tokio::fs::OpenOptions::from(options).open(path).await?;
        Ok(LineOutput::Stream(tokio::io::BufWriter::with_capacity(
            BUFFER,
            Box::new(file),
        )))
    }

    pub(crate) async fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            LineOutput::File(writer) => writer.write_all(bytes),
            LineOutput::Stream(writer) => writer.write_all(bytes).await,
        }
    }

    pub(crate) async fn flush(&mut self) -> std::io::Result<()> {
        match self {
            LineOutput::File(writer) => writer.flush(),
            LineOutput::Stream(writer) => writer.flush().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn lines(input: &mut LineInput) -> Vec<String> {
        let mut lines = Vec::new();
        let mut buf = Vec::new();
        while input.read_until_newline(&mut buf).await.unwrap() > 0 {
            lines.push(String::from_utf8(std::mem::take(&mut buf)).unwrap());
        }
        lines
    }

    #[test]
    fn a_line_is_read_across_buffer_refills_as_the_standard_library_reads_it() {
        let text = b"first line\n\nx\na line longer than the buffer\nno newline at the end";
        for capacity in [1, 3, 8, 64] {
            let mut ours = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut std_reader = std::io::BufReader::with_capacity(capacity, &text[..]);
            loop {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let read = read_line(&mut ours, &mut a).unwrap();
                assert_eq!(read, std_reader.read_until(b'\n', &mut b).unwrap());
                assert_eq!(a, b, "capacity {capacity}");
                if read == 0 {
                    break;
                }
            }
        }
    }

    #[tokio::test]
    async fn a_regular_file_is_appended_to_and_read_from_a_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        for text in ["a\n", "bb\n"] {
            let mut out = LineOutput::append(&path).await.unwrap();
            assert!(matches!(out, LineOutput::File(_)));
            out.write_all(text.as_bytes()).await.unwrap();
            out.flush().await.unwrap();
        }
        let mut input = LineInput::open(&path).await.unwrap();
        assert!(matches!(input, LineInput::File(_)));
        input.seek(2).await.unwrap();
        assert_eq!(lines(&mut input).await, ["bb\n"]);
    }

    fn buffer_capacity(input: &mut LineInput) -> usize {
        match input {
            LineInput::File(file) => file.reader().unwrap().capacity(),
            _ => panic!("not a regular file"),
        }
    }

    #[tokio::test]
    async fn an_idle_file_gives_its_buffer_back_and_reads_what_is_appended_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        std::fs::write(&path, "a\nb\n").unwrap();
        let mut input = LineInput::open(&path).await.unwrap();
        let mut buf = Vec::new();
        // A line read with another still in the buffer: the buffer stays, and nothing is lost.
        input.read_until_newline(&mut buf).await.unwrap();
        input.release_buffer();
        assert_eq!(buffer_capacity(&mut input), BUFFER);
        assert_eq!(lines(&mut input).await, ["b\n"]);
        // At the end of the file the buffer goes, and an idle read makes none.
        input.release_buffer();
        assert_eq!(buffer_capacity(&mut input), 0);
        assert_eq!(input.read_until_newline(&mut buf).await.unwrap(), 0);
        assert_eq!(buffer_capacity(&mut input), 0);
        // Lines appended later are read, through a new buffer.
        let mut out = LineOutput::append(&path).await.unwrap();
        out.write_all(b"c\nd\n").await.unwrap();
        out.flush().await.unwrap();
        assert_eq!(lines(&mut input).await, ["c\n", "d\n"]);
        assert_eq!(buffer_capacity(&mut input), BUFFER);
    }

    #[tokio::test]
    async fn a_line_cut_short_by_a_crash_is_not_glued_to_the_next_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "line 1\nline 2\nline 3").unwrap();
        let mut out = LineOutput::append(&path).await.unwrap();
        out.write_all(b"line 3\n").await.unwrap();
        out.flush().await.unwrap();
        drop(out);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "line 1\nline 2\nline 3\nline 3\n"
        );
        // A whole file, or an empty one, is appended to as it is.
        let mut out = LineOutput::append(&path).await.unwrap();
        out.write_all(b"line 4\n").await.unwrap();
        out.flush().await.unwrap();
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "").unwrap();
        let mut fresh = LineOutput::append(&empty).await.unwrap();
        fresh.write_all(b"a\n").await.unwrap();
        fresh.flush().await.unwrap();
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .ends_with("line 3\nline 4\n"));
        assert_eq!(std::fs::read_to_string(&empty).unwrap(), "a\n");
    }

    #[tokio::test]
    async fn a_position_sought_while_idle_is_where_reading_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        std::fs::write(&path, "one\ntwo\n").unwrap();
        let mut input = LineInput::open(&path).await.unwrap();
        assert_eq!(lines(&mut input).await, ["one\n", "two\n"]);
        input.release_buffer();
        input.seek(4).await.unwrap();
        assert_eq!(lines(&mut input).await, ["two\n"]);
    }

    #[tokio::test]
    async fn opening_a_named_pipe_without_a_writer_leaves_the_runtime_free() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // Should the open hold this single-threaded runtime's thread, a writer arriving later
        // releases it, and the timeout below is then missed rather than the test hanging.
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(2));
                std::fs::write(fifo, "x\n").unwrap();
            })
        };
        let waited = tokio::time::timeout(Duration::from_millis(200), LineInput::open(&fifo)).await;
        assert!(waited.is_err(), "the open should still wait for a writer");
        let mut input = LineInput::open(&fifo).await.unwrap();
        assert!(matches!(input, LineInput::Special(_)));
        assert_eq!(lines(&mut input).await, ["x\n"]);
        writer.join().unwrap();
    }
}
