package weft.ucp;

import weft.uct.Packer;

/**
 * A packer of one protocol's copied messages (one per worker, reused: the data path of a worker is single
 * threaded): set before each {@code amBcopy} call with the message kind, the request and the piece of
 * its data, then asked by the transport to write the message.
 */
abstract class RequestPacker implements Packer {
    /** The message to write (the subclass's constants). */
    int mode;
    Request r;
    /** The piece of the request's data: its position and length. */
    long pos;
    long len;

    final void set(final int m, final Request req, final long p, final long n) {
        mode = m;
        r = req;
        pos = p;
        len = n;
    }
}
