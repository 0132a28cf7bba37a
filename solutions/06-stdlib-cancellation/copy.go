package platform

import (
	"context"
	"io"
)

// chunkSize is how much Copy moves at a time, between two looks at its
// context.
const chunkSize = 32 * 1024

// Copy copies the stock import file from src to dst, a chunk at a time,
// until the end of src, and returns how many bytes it wrote and nil.
//
// Copy looks at ctx before reading each chunk. Once ctx has ended, it
// stops there and returns the number of bytes written so far and
// context.Cause(ctx). A chunk that has been read is always written first:
// the caller learns exactly how much of the file arrived. An error reading
// src or writing dst is returned as it is, with the bytes written so far; a
// write that takes less than the whole chunk is io.ErrShortWrite.
func Copy(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	// io.Reader and io.Writer take no context, and io.Copy runs to the end
	// of src whatever happens to the caller. So the context is asked between
	// chunks: cancelling costs at most one more chunk (32 KiB here), and
	// never a half-written one.
	//
	// Another way to the same result: wrap src in a reader whose Read
	// returns context.Cause(ctx) once ctx has ended, and hand it to
	// io.Copy. Asking only once, before the loop, is not enough: a
	// 2 GB import would run to the end.
	//
	// Neither can stop a Read that is already blocked — a Read of os.Stdin
	// waiting for a keypress, say. Between chunks is the best a plain
	// io.Reader allows; see the README for what to do about a read that
	// may block forever.
	buf := make([]byte, chunkSize)
	var written int64
	for {
		if ctx.Err() != nil {
			// Cause, as everywhere in this package: the caller's reason
			// ("import superseded by a newer file") beats "context canceled".
			return written, context.Cause(ctx)
		}
		n, readErr := src.Read(buf)
		// Write what was read before looking at the error: a Read may
		// return the last bytes of the file together with io.EOF, and
		// dropping them loses the end of the import.
		if n > 0 {
			w, err := dst.Write(buf[:n])
			written += int64(w)
			if err != nil {
				return written, err
			}
			if w < n {
				return written, io.ErrShortWrite
			}
		}
		if readErr == io.EOF {
			return written, nil
		}
		if readErr != nil {
			return written, readErr
		}
	}
}
