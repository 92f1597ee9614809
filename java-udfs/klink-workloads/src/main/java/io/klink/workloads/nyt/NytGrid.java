package io.klink.workloads.nyt;

/**
 * The DEBS 2015 Grand Challenge grid: 300 x 300 cells of 500 m x 500 m; cell 1.1 is centred on
 * (41.474937 N, -74.913585 E), x grows east, y grows south. A cell id is {@code "x.y"}.
 */
public final class NytGrid {

    public static final double CELL1_LAT = 41.474937;
    public static final double CELL1_LON = -74.913585;
    public static final double CELL_DEG_LAT = 0.004491556;
    public static final double CELL_DEG_LON = 0.005986;
    public static final int CELLS = 300;

    private NytGrid() {}

    /** 1-based column (east), or 0 if outside the grid. */
    public static int x(double lon) {
        return index((lon - (CELL1_LON - CELL_DEG_LON / 2)) / CELL_DEG_LON);
    }

    /** 1-based row (south), or 0 if outside the grid. */
    public static int y(double lat) {
        return index(((CELL1_LAT + CELL_DEG_LAT / 2) - lat) / CELL_DEG_LAT);
    }

    private static int index(double cells) {
        if (!(cells >= 0) || cells >= CELLS) {
            return 0;
        }
        return (int) cells + 1;
    }

    public static boolean contains(double lon, double lat) {
        return x(lon) != 0 && y(lat) != 0;
    }

    public static String cell(double lon, double lat) {
        return x(lon) + "." + y(lat);
    }
}
