package io.klink.workloads.tail;

import java.io.Serializable;

/**
 * What one stage of a per-record pipeline does to a record's payload, on top of its {@link ServiceTime}: returns
 * the new payload, or null to drop the record (a filter). The exclamation stages append "!"; YSB's stages parse,
 * filter, project and join (io.klink.workloads.ysb.YsbRecordsJob).
 */
@FunctionalInterface
public interface RecordWork extends Serializable {

    String apply(String payload);

    /** The seed's exclamation operator (§5.1). */
    RecordWork EXCLAIM = payload -> payload + "!";

    /** The spout's: hands the record on as it came. */
    RecordWork PASS = payload -> payload;
}
