package mpi;

/** A file view as {@link File#getView} reports it: displacement, etype, filetype and data representation. */
public final class FileView {
    private final long disp;
    private final Datatype etype;
    private final Datatype filetype;
    private final String datarep;

    /** A view of the file from byte {@code disp} on, tiled by {@code filetype}, counted in {@code etype}s. */
    public FileView(final long disp, final Datatype etype, final Datatype filetype, final String datarep) {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
    }

    /** The displacement: the file byte where the view starts. */
    public long getDisp() {
        return disp;
    }

    /** The elementary datatype: the unit of offsets and file pointers. */
    public Datatype getEType() {
        return etype;
    }

    /** The filetype tiled over the file from the displacement on. */
    public Datatype getFileType() {
        return filetype;
    }

    /** The data representation: "native", "internal" or "external32". */
    public String getDataRep() {
        return datarep;
    }

    @Override
    public String toString() {
        return "FileView[disp " + disp + ", etype " + etype + ", filetype " + filetype + ", " + datarep + "]";
    }
}
