/**
 * The transport layer (modelled on UCT): the SPI a transport implements ({@link weft.uct.Transport},
 * {@link weft.uct.MemoryDomain}, {@link weft.uct.Interface}, {@link weft.uct.Endpoint}) with its
 * completion contract (OK now, IN_PROGRESS later through a {@link weft.uct.Completion}, NO_RESOURCE:
 * nothing happened, retry or queue as pending), and the bases the built-in transports share:
 * {@link weft.uct.AbstractTransport}, {@link weft.uct.AbstractMemoryDomain},
 * {@link weft.uct.AbstractInterface}, {@link weft.uct.AbstractEndpoint}, {@link weft.uct.MappedEndpoint}
 * and {@link weft.uct.AbstractRemoteKey}. The transports live in sub-packages and never import one
 * another.
 */
package weft.uct;
