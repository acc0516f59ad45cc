package weft.tools.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * PNG plots of a bench run (headless AWT, no library): for one transport and one metric, the
 * figure against message size on log-log axes, one colour per test, Weft solid with dots, UCX
 * dashed with squares.
 */
final class BenchPlot {
    private static final int W = 960;
    private static final int H = 600;
    private static final int LEFT = 90;
    private static final int RIGHT = 230;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

    private BenchPlot() {
    }

    /** A line: the points of one test on one side. */
    private record Series(String name, Color color, boolean weft, List<double[]> xy) {
    }

    /**
     * Writes {@code file} if the rows have at least one figure of {@code metric} on {@code transport};
     * returns whether it wrote it.
     */
    static boolean write(final Path file, final List<BenchRow> rows, final String transport, final Metric metric)
        throws IOException {
        final Map<String, List<BenchRow>> byTest = new LinkedHashMap<>();
        for (final BenchRow r : rows) {
            if (r.point.transport().equals(transport) && r.point.metric() == metric) {
                byTest.computeIfAbsent(r.point.test(), k -> new ArrayList<>()).add(r);
            }
        }
        final List<Series> series = new ArrayList<>();
        int colour = 0;
        for (final Map.Entry<String, List<BenchRow>> e : byTest.entrySet()) {
            final Color c = PALETTE[colour++ % PALETTE.length];
            final List<double[]> w = new ArrayList<>();
            final List<double[]> u = new ArrayList<>();
            for (final BenchRow r : e.getValue()) {
                if (r.weftValue() > 0) {
                    w.add(new double[] {r.point.size(), r.weftValue()});
                }
                if (r.ucxValue() > 0 && !r.point.proxyAnchor()) {
                    u.add(new double[] {r.point.size(), r.ucxValue()});
                }
            }
            if (!w.isEmpty()) {
                series.add(new Series("weft " + e.getKey(), c, true, w));
            }
            if (!u.isEmpty()) {
                series.add(new Series("ucx " + e.getKey(), c, false, u));
            }
        }
        if (series.isEmpty()) {
            return false;
        }
        final BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = img.createGraphics();
        try {
            draw(g, series, transport, metric);
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
        return true;
    }

    private static void draw(final Graphics2D g, final List<Series> series, final String transport,
                             final Metric metric) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        double xmin = Double.MAX_VALUE;
        double xmax = 0;
        double ymin = Double.MAX_VALUE;
        double ymax = 0;
        for (final Series s : series) {
            for (final double[] p : s.xy) {
                xmin = Math.min(xmin, p[0]);
                xmax = Math.max(xmax, p[0]);
                ymin = Math.min(ymin, p[1]);
                ymax = Math.max(ymax, p[1]);
            }
        }
        // whole decades around the data (sizes in powers of two would give odd ticks; decades read well)
        final double lx0 = Math.floor(Math.log10(Math.max(1, xmin)));
        final double lx1 = Math.max(lx0 + 1, Math.ceil(Math.log10(xmax)));
        final double ly0 = Math.floor(Math.log10(ymin));
        final double ly1 = Math.max(ly0 + 1, Math.ceil(Math.log10(ymax)));
        final int pw = W - LEFT - RIGHT;
        final int ph = H - TOP - BOTTOM;
        final java.util.function.DoubleUnaryOperator px = x -> LEFT + (Math.log10(x) - lx0) / (lx1 - lx0) * pw;
        final java.util.function.DoubleUnaryOperator py = y -> TOP + ph - (Math.log10(y) - ly0) / (ly1 - ly0) * ph;

        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        final FontMetrics fm = g.getFontMetrics();
        g.setColor(new Color(0xe8e8e8));
        for (double d = lx0; d <= lx1; d++) {
            final int x = (int) px.applyAsDouble(Math.pow(10, d));
            g.drawLine(x, TOP, x, TOP + ph);
        }
        for (double d = ly0; d <= ly1; d++) {
            final int y = (int) py.applyAsDouble(Math.pow(10, d));
            g.drawLine(LEFT, y, LEFT + pw, y);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, pw, ph);
        for (double d = lx0; d <= lx1; d++) {
            final int x = (int) px.applyAsDouble(Math.pow(10, d));
            final String t = sizeTick(Math.pow(10, d));
            g.drawString(t, x - fm.stringWidth(t) / 2, TOP + ph + 18);
        }
        for (double d = ly0; d <= ly1; d++) {
            final int y = (int) py.applyAsDouble(Math.pow(10, d));
            final String t = valueTick(Math.pow(10, d));
            g.drawString(t, LEFT - 8 - fm.stringWidth(t), y + fm.getAscent() / 2 - 1);
        }
        final String xl = "message size (bytes)";
        g.drawString(xl, LEFT + pw / 2 - fm.stringWidth(xl) / 2, H - 25);
        final String yl = metric.label() + " (" + metric.unit() + (metric == Metric.LATENCY ? ", one way" : "") + ")";
        final java.awt.geom.AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        g.drawString(yl, -(TOP + ph / 2) - fm.stringWidth(yl) / 2, 22);
        g.setTransform(saved);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("Weft vs UCX: " + metric.label() + " over " + transport
            + (metric == Metric.LATENCY ? " (lower is better)" : " (higher is better)"), LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));

        final BasicStroke solid = new BasicStroke(2f);
        final BasicStroke dashed = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[] {7f, 5f}, 0f);
        int legendY = TOP + 10;
        for (final Series s : series) {
            g.setColor(s.color);
            g.setStroke(s.weft ? solid : dashed);
            int lastX = -1;
            int lastY = -1;
            for (final double[] p : s.xy) {
                final int x = (int) px.applyAsDouble(p[0]);
                final int y = (int) py.applyAsDouble(p[1]);
                if (lastX >= 0) {
                    g.drawLine(lastX, lastY, x, y);
                }
                marker(g, s.weft, x, y);
                lastX = x;
                lastY = y;
            }
            final int lx = LEFT + pw + 20;
            g.drawLine(lx, legendY, lx + 30, legendY);
            marker(g, s.weft, lx + 15, legendY);
            g.setColor(Color.BLACK);
            g.drawString(s.name, lx + 38, legendY + fm.getAscent() / 2 - 1);
            legendY += 20;
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static void marker(final Graphics2D g, final boolean weft, final int x, final int y) {
        final java.awt.Stroke st = g.getStroke();
        g.setStroke(new BasicStroke(1f));
        if (weft) {
            g.fillOval(x - 4, y - 4, 8, 8);
        } else {
            g.drawRect(x - 4, y - 4, 8, 8);
        }
        g.setStroke(st);
    }

    private static String sizeTick(final double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.0fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String valueTick(final double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.0fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%s", v);
    }
}
