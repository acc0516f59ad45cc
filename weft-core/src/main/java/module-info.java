/**
 * Weft core: services (ucs), the transport SPI (uct) and the built-in transports.
 * Only API packages are exported; transport implementations are found with ServiceLoader.
 */
module weft.core {
    exports weft.ucs;
    exports weft.ucs.config;
    exports weft.ucs.stats;
    exports weft.ucs.memory;
    exports weft.ucs.queue;
    exports weft.ucs.wakeup;
    exports weft.uct;
    exports weft.ucp;
    exports weft.runtime;
    exports weft.job;

    uses weft.uct.Transport;

    provides weft.uct.Transport with
        weft.uct.self.SelfTransport,
        weft.uct.shm.ShmTransport,
        weft.uct.cma.CmaTransport,
        weft.uct.tcp.TcpTransport;
}
