package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
)

func TestCopy(t *testing.T) {
	begun(t, "Copy", func() error { _, err := Copy(context.Background(), io.Discard, bytes.NewReader(nil)); return err })
	// importFile is a stock import file of n bytes: lines such as
	// "flavour-17,6437\n", cut wherever n falls.
	importFile := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "flavour-%d,%d\n", i, i*37%10000)
		}
		return b.Bytes()[:n]
	}
	errClosing := errors.New("import superseded by a newer file")

	t.Run("whole file", func(t *testing.T) {
		file := importFile(3*chunkSize + 1234)
		var dst bytes.Buffer
		n, err := Copy(context.Background(), &dst, bytes.NewReader(file))
		assert.NoError(t, err, "Copy(live ctx, dst, a %d-byte file) (task 4: return nil at io.EOF)", len(file))
		assert.Equal(t, int64(len(file)), n, "Copy(live ctx, dst, a %d-byte file) returned this count (task 4: count the bytes written)", len(file))
		assert.True(t, bytes.Equal(file, dst.Bytes()), "Copy(live ctx, dst, a %d-byte file) wrote %d bytes that are not the file (task 4: write each chunk read, in order)", len(file), dst.Len())
	})

	t.Run("last bytes with EOF", func(t *testing.T) {
		file := importFile(1000)
		var dst bytes.Buffer
		// DataErrReader returns the last bytes of the file and io.EOF from
		// the same Read, as io.Reader allows.
		n, err := Copy(context.Background(), &dst, iotest.DataErrReader(bytes.NewReader(file)))
		assert.NoError(t, err, "Copy(live ctx, dst, a reader that returns its last bytes with io.EOF) (task 4: io.EOF is the end, not an error)")
		assert.Equal(t, int64(len(file)), n, "Copy(live ctx, dst, a %d-byte reader that returns its last bytes with io.EOF) returned this count; want them all (task 4: write what Read returned before looking at its error)", len(file))
		assert.True(t, bytes.Equal(file, dst.Bytes()), "Copy wrote %d of %d bytes of a reader that returns its last bytes with io.EOF; want them all (task 4: write what Read returned before looking at its error)", dst.Len(), len(file))
	})

	t.Run("cancel between chunks", func(t *testing.T) {
		file := importFile(10000)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		// The file arrives at most 1000 bytes per Read; the import is
		// called off during the third.
		src := &chunkedReader{data: file, chunk: 1000}
		src.onRead = func(reads int) {
			if reads == 3 {
				cancel(errClosing)
			}
		}
		var dst bytes.Buffer
		n, err := Copy(ctx, &dst, src)
		assert.ErrorIs(t, err, errClosing, "Copy(ctx cancelled with the cause %q during the 3rd Read)'s error (task 4: once ctx has ended, return context.Cause(ctx), not nil or ctx.Err())", errClosing)
		assert.Equal(t, 3, src.reads, "Copy made this many Reads when its context ended during the 3rd; want it to stop reading there (task 4: ask ctx.Err() before each Read, not only once before the loop — io.Copy never asks)")
		assert.Equal(t, src.given, n, "Copy(ctx cancelled during the 3rd Read) returned this count; want every byte its 3 Reads returned, written (task 4: write the chunk you read, then ask the context before the next)")
		assert.True(t, bytes.Equal(file[:src.given], dst.Bytes()), "Copy(ctx cancelled during the 3rd Read) wrote %d bytes; want the %d bytes its 3 Reads returned (task 4: write the chunk you read, then ask the context before the next)", dst.Len(), src.given)
	})

	t.Run("ended context", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errClosing)
		src := &chunkedReader{data: importFile(5000), chunk: 1000}
		var dst bytes.Buffer
		n, err := Copy(ctx, &dst, src)
		assert.ErrorIs(t, err, errClosing, "Copy(ctx that had already ended with the cause %q)'s error (task 4: return context.Cause(ctx))", errClosing)
		assert.Zero(t, src.reads, "Copy(ctx that had already ended) read from src; want no read at all (task 4: ask ctx.Err() before each Read)")
		assert.Zero(t, n, "Copy(ctx that had already ended) returned this count (task 4)")
	})

	t.Run("write error", func(t *testing.T) {
		errDiskFull := errors.New("disk full")
		dst := &failingWriter{room: 2500, err: errDiskFull}
		n, err := Copy(context.Background(), dst, &chunkedReader{data: importFile(5000), chunk: 1000})
		assert.ErrorIs(t, err, errDiskFull, "Copy(live ctx, a writer that fails after 2500 bytes, src)'s error (task 4: return the write's error)")
		assert.Equal(t, int64(2500), n, "Copy(live ctx, a writer that fails after 2500 bytes, src) returned this count; want the bytes the writer took (task 4: count what Write returned, even with an error)")
	})

	t.Run("short write", func(t *testing.T) {
		dst := &halfWriter{}
		n, err := Copy(context.Background(), dst, &chunkedReader{data: importFile(5000), chunk: 1000})
		assert.ErrorIs(t, err, io.ErrShortWrite, "Copy(live ctx, a writer that takes 500 of the first 1000 bytes and returns a nil error, src) returned (%d, %v); "+
			"want io.ErrShortWrite, as io.Copy does: the writer broke io.Writer's contract, and the file did not arrive whole (task 4: when Write returns fewer bytes than it was given, stop)", n, err)
		assert.Equal(t, int64(500), n, "Copy(live ctx, a writer that takes 500 of the first 1000 bytes and returns a nil error, src) returned this count; want the bytes the writer took (task 4)")
	})
}

// halfWriter takes half of what each Write gives it, and returns a nil
// error all the same, which io.Writer's contract forbids.
type halfWriter struct{}

func (*halfWriter) Write(p []byte) (int, error) {
	return len(p) / 2, nil
}

// chunkedReader reads data at most chunk bytes at a time, counts its
// Reads and the bytes they returned, and calls onRead (if set) with the
// count of Reads during each one.
type chunkedReader struct {
	data   []byte
	chunk  int
	reads  int
	given  int64
	onRead func(reads int)
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.reads++
	if r.onRead != nil {
		r.onRead(r.reads)
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	r.given += int64(n)
	return n, nil
}

// failingWriter takes room bytes, then fails with err.
type failingWriter struct {
	room int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.room {
		w.room -= len(p)
		return len(p), nil
	}
	n := w.room
	w.room = 0
	return n, w.err
}
