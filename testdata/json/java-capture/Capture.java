import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Writes the bytes of Kafka Connect's JsonConverter.fromConnectData for every case of
 * crates/ferry-json/tests/golden.rs, one file per case, named like the fixture.
 *
 * <p>Each case below mirrors the Rust case of the same file name: same schema, same value,
 * same converter settings (a value converter, as the Rust test configures it). Ferry keeps
 * Date/Time/Timestamp values in their physical form, so the Java values are the
 * java.util.Date instants those integers stand for.
 *
 * <p>Usage: java Capture OUT_DIR
 */
public final class Capture {
    private static final long MS_PER_DAY = 24L * 60 * 60 * 1000;

    private static final Map<String, String> DEFAULTS = Map.of();
    private static final Map<String, String> NUMERIC = Map.of("decimal.format", "NUMERIC");
    private static final Map<String, String> NO_REPLACE =
            Map.of("replace.null.with.default", "false");
    private static final Map<String, String> SCHEMALESS = Map.of("schemas.enable", "false");

    private record Case(String file, Map<String, String> config, Schema schema, Object value) {}

    private Capture() {}

    private static BigDecimal dec(long unscaled, int scale) {
        return new BigDecimal(BigInteger.valueOf(unscaled), scale);
    }

    /** LinkedHashMap from alternating keys and values, keeping their order. */
    private static Map<Object, Object> orderedMap(Object... keysAndValues) {
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static Schema arrayOf(Schema items) {
        return SchemaBuilder.array(items).build();
    }

    private static Schema struct4Schema() {
        return SchemaBuilder.struct()
                .field("field1", Schema.BOOLEAN_SCHEMA)
                .field("field2", Schema.STRING_SCHEMA)
                .field("field3", Schema.STRING_SCHEMA)
                .field("field4", Schema.BOOLEAN_SCHEMA)
                .build();
    }

    private static Struct struct4Value(Schema schema) {
        return new Struct(schema)
                .put("field1", true)
                .put("field2", "string2")
                .put("field3", "string3")
                .put("field4", false);
    }

    private static Case nestedStruct(String file) {
        Schema customerSchema = SchemaBuilder.struct()
                .name("com.example.Customer")
                .optional()
                .field("name", Schema.STRING_SCHEMA)
                .field("email", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Schema noteSchema = SchemaBuilder.string().optional().defaultValue("n/a").build();
        Schema schema = SchemaBuilder.struct()
                .name("com.example.Order")
                .version(2)
                .doc("An order")
                .field("id", Schema.INT64_SCHEMA)
                .field("customer", customerSchema)
                .field("note", noteSchema)
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
                .build();
        Struct customer = new Struct(customerSchema).put("name", "Ada");
        Struct order = new Struct(schema)
                .put("id", 7L)
                .put("customer", customer)
                .put("note", null)
                .put("tags", List.of("a", "b"));
        return new Case(file, DEFAULTS, schema, order);
    }

    private static Schema fieldWithDefaultSchema() {
        Schema field = SchemaBuilder.string().optional().defaultValue("default").build();
        return SchemaBuilder.struct().field("field1", field).build();
    }

    private static Schema stringWithDefault() {
        return SchemaBuilder.string().optional().defaultValue("default").build();
    }

    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();

        cases.add(new Case("boolean.json", DEFAULTS, Schema.BOOLEAN_SCHEMA, true));
        cases.add(new Case("int8.json", DEFAULTS, Schema.INT8_SCHEMA, (byte) 12));
        cases.add(new Case("int16.json", DEFAULTS, Schema.INT16_SCHEMA, (short) -300));
        cases.add(new Case("int32.json", DEFAULTS, Schema.INT32_SCHEMA, 12));
        cases.add(new Case("int64.json", DEFAULTS, Schema.INT64_SCHEMA, 4398046511104L));
        cases.add(new Case("float32.json", DEFAULTS, Schema.FLOAT32_SCHEMA, 12.34f));
        cases.add(new Case("float64.json", DEFAULTS, Schema.FLOAT64_SCHEMA, 12.34));
        cases.add(new Case("float64_formats.json", DEFAULTS, arrayOf(Schema.FLOAT64_SCHEMA),
                Arrays.asList(1.0, 1e10, 1e-4, 0.001, -0.0, 1234567.0, 1e7, 5e-324)));
        cases.add(new Case("float32_formats.json", DEFAULTS, arrayOf(Schema.FLOAT32_SCHEMA),
                Arrays.asList(0.1f, 1e10f, Float.MAX_VALUE, 1.4e-45f, -2.5e-4f)));
        cases.add(new Case("float64_non_finite.json", DEFAULTS, arrayOf(Schema.FLOAT64_SCHEMA),
                Arrays.asList(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)));
        cases.add(new Case("string.json", DEFAULTS, Schema.STRING_SCHEMA, "foo-bar-baz"));
        // Written with escapes only, so the source file is plain ASCII.
        cases.add(new Case("string_escapes.json", DEFAULTS, Schema.STRING_SCHEMA,
                "q \" b \\ s / n \n t \t r \r b \b f \f z \u0000 u \u001f d \u007f"
                        + " \u00e9 \ud83d\ude00"));
        cases.add(new Case("bytes.json", DEFAULTS, Schema.BYTES_SCHEMA,
                "test-string".getBytes(StandardCharsets.UTF_8)));
        cases.add(new Case("array.json", DEFAULTS, arrayOf(Schema.INT32_SCHEMA),
                Arrays.asList(1, 2, 3)));
        cases.add(new Case("map_string_keys.json", DEFAULTS,
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
                orderedMap("key1", 12, "key2", 15)));
        cases.add(new Case("map_int_keys.json", DEFAULTS,
                SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build(),
                orderedMap(1, 12, 2, 15)));
        cases.add(new Case("map_int64_keys_optional_values.json", DEFAULTS,
                SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build(),
                orderedMap(1L, "a", 2L, null)));

        Schema struct4 = struct4Schema();
        cases.add(new Case("struct.json", DEFAULTS, struct4, struct4Value(struct4)));
        cases.add(nestedStruct("struct_nested.json"));

        Schema withDefault = fieldWithDefaultSchema();
        cases.add(new Case("struct_field_null_to_default.json", DEFAULTS, withDefault,
                new Struct(withDefault).put("field1", null)));
        cases.add(new Case("struct_field_null_kept.json", NO_REPLACE, withDefault,
                new Struct(withDefault).put("field1", null)));

        Schema spec = SchemaBuilder.struct()
                .name("order")
                .field("id", Schema.INT32_SCHEMA)
                .field("amount", Decimal.builder(2).optional().build())
                .build();
        cases.add(new Case("struct_spec_example.json", DEFAULTS, spec,
                new Struct(spec).put("id", 7).put("amount", dec(201, 2))));

        cases.add(new Case("decimal_base64.json", DEFAULTS, Decimal.schema(2), dec(156, 2)));
        cases.add(new Case("decimal_base64_negative.json", DEFAULTS, Decimal.schema(2),
                dec(-156, 2)));
        cases.add(new Case("decimal_numeric.json", NUMERIC, Decimal.schema(2), dec(156, 2)));
        cases.add(new Case("decimal_numeric_trailing_zeros.json", NUMERIC, Decimal.schema(4),
                dec(15600, 4)));
        cases.add(new Case("decimal_numeric_exponent.json", NUMERIC, Decimal.schema(8),
                dec(5, 8)));
        cases.add(new Case("decimal_default.json", DEFAULTS,
                Decimal.builder(2).optional().defaultValue(dec(156, 2)).build(), null));

        // Ferry's physical values: 10000 days, 14_400_000 ms of day, 4_000_000_000 epoch ms.
        cases.add(new Case("date.json", DEFAULTS, Date.SCHEMA,
                new java.util.Date(10000L * MS_PER_DAY)));
        cases.add(new Case("time.json", DEFAULTS, Time.SCHEMA, new java.util.Date(14_400_000L)));
        cases.add(new Case("timestamp.json", DEFAULTS, Timestamp.SCHEMA,
                new java.util.Date(4_000_000_000L)));

        cases.add(new Case("optional_null.json", DEFAULTS, Schema.OPTIONAL_BOOLEAN_SCHEMA, null));
        cases.add(new Case("null_to_default.json", DEFAULTS, stringWithDefault(), null));
        cases.add(new Case("null_kept.json", NO_REPLACE, stringWithDefault(), null));

        Schema metadata = SchemaBuilder.bool()
                .required()
                .name("bool")
                .version(3)
                .doc("the documentation")
                .parameter("foo", "bar")
                .defaultValue(true)
                .build();
        cases.add(new Case("schema_metadata.json", DEFAULTS, metadata, true));

        cases.add(new Case("null_schema_array.json", DEFAULTS, null,
                Arrays.asList(1, "string", true)));
        cases.add(new Case("schemaless_struct.json", SCHEMALESS, struct4, struct4Value(struct4)));
        cases.add(new Case("schemaless_map.json", SCHEMALESS, null,
                orderedMap("key1", 12, "key2", "string", "key3", true)));
        cases.add(new Case("schemaless_map_mixed_keys.json", SCHEMALESS, null,
                orderedMap("string", 12, 52, "string", false, true)));
        cases.add(new Case("schemaless_optional_null.json", SCHEMALESS,
                Schema.OPTIONAL_INT32_SCHEMA, null));
        return cases;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: Capture OUT_DIR");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        Files.createDirectories(out);
        int written = 0;
        for (Case c : cases()) {
            JsonConverter converter = new JsonConverter();
            converter.configure(c.config(), false);
            byte[] bytes = converter.fromConnectData("topic", c.schema(), c.value());
            if (bytes == null) {
                throw new IllegalStateException(c.file() + ": converter returned null");
            }
            Files.write(out.resolve(c.file()), bytes);
            written++;
        }
        System.out.println("wrote " + written + " fixtures to " + out);
    }
}
