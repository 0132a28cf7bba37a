package platform

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
)

func TestCopy(t *testing.T) {
	begun(t, "Copy", func() error { _, err := Copy(context.Background(), io.Discard, bytes.NewReader(nil)); return err })
	file := make([]byte, 3*chunkSize+1234) // the stock import file
	for i := range file {
		file[i] = byte(i % 251)
	}
	errDisk, errNet := errors.New("disk full"), errors.New("connection reset")
	for _, tc := range []struct {
		name     string
		size     int   // bytes of file in src, which Reads at most 1000 bytes at a time
		cancelAt int   // the Read during which ctx is cancelled with errClosing; -1: before Copy
		end      error // what Read returns with the last bytes: nil, io.EOF or a read error
		dst      io.Writer
		want     int64 // bytes written, of file[:want]; -1: every byte its Reads gave
		reads    int   // Reads of the chunkedReader, if not 0 (-1: none)
		wantErr  error
		fix      string
	}{
		{name: "whole file", size: len(file), want: int64(len(file)), wantErr: nil,
			fix: "write each chunk read, count it, return nil at io.EOF"},
		{name: "last bytes with EOF", size: 1000, end: io.EOF, want: 1000, wantErr: nil,
			fix: "write what Read returned before looking at its error"},
		{name: "cancel between chunks", size: 10000, cancelAt: 3, want: -1, reads: 3, wantErr: errClosing,
			fix: "ask ctx.Err() before each Read; write the chunk read; return context.Cause(ctx)"},
		{name: "ended context", size: 5000, cancelAt: -1, want: 0, reads: -1, wantErr: errClosing, fix: "ask ctx.Err() before each Read"},
		{name: "read error", size: 1500, end: errNet, want: 1500, wantErr: errNet, fix: "write the bytes read, then return the Read's error as it is"},
		{name: "write error", size: 5000, dst: &failingWriter{room: 2500, err: errDisk}, want: 2500, wantErr: errDisk,
			fix: "return the Write's error and the bytes it took"},
		{name: "short write", size: 5000, dst: &failingWriter{room: 500}, want: 500, wantErr: io.ErrShortWrite,
			fix: "a Write that takes less than its chunk is io.ErrShortWrite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // a Copy that waits on ctx.Done() fails fast: a deadlock
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				cr := &chunkedReader{data: file[:tc.size], end: tc.end, onRead: func(reads int) {
					if reads == tc.cancelAt {
						cancel(errClosing)
					}
				}}
				if tc.cancelAt < 0 {
					cancel(errClosing)
				}
				var buf bytes.Buffer
				n, err := Copy(ctx, cmp.Or[io.Writer](tc.dst, &buf), cr)
				if tc.want < 0 {
					tc.want = int64(tc.size - len(cr.data))
				}
				if n != tc.want || !errors.Is(err, tc.wantErr) || tc.reads != 0 && cr.reads != max(tc.reads, 0) ||
					tc.dst == nil && !bytes.Equal(buf.Bytes(), file[:tc.want]) {
					t.Errorf("Copy = %d, %v after %d Reads, wrote the file's first %d bytes: %v; want %d, %v (%s)",
						n, err, cr.reads, buf.Len(), bytes.Equal(buf.Bytes(), file[:buf.Len()]), tc.want, tc.wantErr, tc.fix)
				}
			})
		})
	}
}

// chunkedReader reads data at most 1000 bytes at a time, returns end with
// its last bytes, and calls onRead with the count of its Reads during each.
type chunkedReader struct {
	data   []byte
	end    error
	reads  int
	onRead func(reads int)
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.reads++
	r.onRead(r.reads)
	n := copy(p[:min(len(p), 1000)], r.data)
	if r.data = r.data[n:]; len(r.data) == 0 {
		return n, r.end
	}
	return n, nil
}

// failingWriter takes room bytes in all, then returns the bytes it took and
// err: with a nil err, a short write, which io.Writer forbids.
type failingWriter struct {
	room int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.room)
	if w.room -= n; n < len(p) {
		return n, w.err
	}
	return n, nil
}
