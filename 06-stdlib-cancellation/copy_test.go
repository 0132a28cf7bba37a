package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

func TestCopy(t *testing.T) {
	begun(t, "Copy", func() error { _, err := Copy(context.Background(), io.Discard, bytes.NewReader(nil)); return err })
	var b bytes.Buffer // a stock import file: "flavour-17,6437\n"…
	for i := 0; b.Len() < 3*chunkSize+1234; i++ {
		fmt.Fprintf(&b, "flavour-%d,%d\n", i, i*37%10000)
	}
	file := b.Bytes()[:3*chunkSize+1234]
	errDisk, errNet := errors.New("disk full"), errors.New("connection reset")
	for _, tc := range []struct {
		name     string
		size     int // bytes of file in src
		cancelAt int // the Read during which ctx is cancelled with errClosing; -1: before Copy
		dst      io.Writer
		src      func(*chunkedReader) io.Reader
		want     int64 // bytes written, of file[:want]
		reads    int   // Reads of the chunkedReader, if not 0 (-1: none)
		wantErr  error
		fix      string
	}{
		{"whole file", len(file), 0, nil, nil, int64(len(file)), 0, nil,
			"write each chunk read, count it, return nil at io.EOF"},
		{"last bytes with EOF", 1000, 0, nil, func(r *chunkedReader) io.Reader { return iotest.DataErrReader(r) }, 1000, 0, nil,
			"write what Read returned before looking at its error"},
		{"cancel between chunks", 10000, 3, nil, nil, 3000, 3, errClosing,
			"ask ctx.Err() before each Read; write the chunk read; return context.Cause(ctx)"},
		{"ended context", 5000, -1, nil, nil, 0, -1, errClosing,
			"ask ctx.Err() before each Read"},
		{"read error", 5000, 0, nil, func(r *chunkedReader) io.Reader {
			return io.MultiReader(io.LimitReader(r, 1500), iotest.ErrReader(errNet))
		}, 1500, 0, errNet,
			"return the Read's error as it is"},
		{"write error", 5000, 0, &failingWriter{room: 2500, err: errDisk}, nil, 2500, 0, errDisk,
			"return the Write's error and the bytes it took"},
		{"short write", 5000, 0, &failingWriter{}, nil, 500, 0, io.ErrShortWrite,
			"a Write that takes less than its chunk is io.ErrShortWrite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			cr := &chunkedReader{data: file[:tc.size], chunk: 1000, onRead: func(reads int) {
				if reads == tc.cancelAt {
					cancel(errClosing)
				}
			}}
			if tc.cancelAt < 0 {
				cancel(errClosing)
			}
			var src io.Reader = cr
			if tc.src != nil {
				src = tc.src(cr)
			}
			var buf bytes.Buffer
			dst := tc.dst
			if dst == nil {
				dst = &buf
			}
			n, err := Copy(ctx, dst, src)
			if n != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("Copy = %d, %v; want %d, %v (%s)", n, err, tc.want, tc.wantErr, tc.fix)
			}
			if tc.dst == nil && !bytes.Equal(buf.Bytes(), file[:tc.want]) {
				t.Errorf("Copy wrote %d bytes that are not the file's first %d (%s)", buf.Len(), tc.want, tc.fix)
			}
			if tc.reads != 0 && cr.reads != max(tc.reads, 0) {
				t.Errorf("Copy made %d Reads, want %d (%s)", cr.reads, max(tc.reads, 0), tc.fix)
			}
		})
	}
}

// chunkedReader reads data at most chunk bytes at a time, counts its Reads,
// and calls onRead with that count during each one.
type chunkedReader struct {
	data   []byte
	chunk  int
	reads  int
	onRead func(reads int)
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.reads++
	r.onRead(r.reads)
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// failingWriter takes room bytes, then returns the bytes it took and err.
// With a nil err it takes half of every Write, which io.Writer forbids.
type failingWriter struct {
	room int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.err == nil {
		return len(p) / 2, nil
	}
	n := min(len(p), w.room)
	w.room -= n
	if n < len(p) {
		return n, w.err
	}
	return n, nil
}
