/**
 * Lock-free queues over shared memory segments: the inter-process multi-producer single-consumer
 * cell FIFO ({@link weft.ucs.queue.FifoDescriptor}, {@link weft.ucs.queue.FifoProducer},
 * {@link weft.ucs.queue.FifoConsumer}) used by the shm transport.
 */
package weft.ucs.queue;
