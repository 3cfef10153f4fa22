"""Unseen probe session 4: a Kotlin/Spring Boot endpoint slowed by N+1 queries."""
# ruff: noqa: E501  (scripted transcripts: tool output and code kept as the tools print them)

from __future__ import annotations

from benchmarks.unseen_log import Log, UnseenSession

_PKG = "src/main/kotlin/com/acme/orders"
_TEST = "src/test/kotlin/com/acme/orders"

_SERVICE = """package com.acme.orders

import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

@Service
class OrderSummaryService(
    private val orders: OrderRepository,
    private val products: ProductRepository,
) {
    @Transactional(readOnly = true)
    fun summarize(orderId: Long): OrderSummary {
        val order = orders.findById(orderId).orElseThrow { OrderNotFound(orderId) }
        val lines = order.lineItems.map { item ->
            val product = products.findById(item.productId).get()
            SummaryLine(product.name, item.quantity, product.priceCents * item.quantity)
        }
        return OrderSummary(order.id!!, lines, lines.sumOf { it.totalCents })
    }
}
"""

_APP_YML = """spring:
  datasource:
    url: jdbc:postgresql://${DB_HOST}:5432/orders
  jpa:
    open-in-view: false
# hibernate tuning
server:
  port: 8080
"""

_BUILD = """plugins {
    id("org.springframework.boot") version "3.2.5"
    kotlin("jvm") version "1.9.23"
    kotlin("plugin.spring") version "1.9.23"
    kotlin("plugin.jpa") version "1.9.23"
    kotlin("kapt") version "1.9.23"
}

dependencies {
    implementation("org.springframework.boot:spring-boot-starter-data-jpa")
    implementation("org.springframework.boot:spring-boot-starter-web")
    runtimeOnly("org.postgresql:postgresql")
    testImplementation("org.testcontainers:postgresql:1.19.7")
}

tasks.test {
    useJUnitPlatform()
}
"""

_RUNBOOK = """# orders-api runbook

## Database
- Pool: Hikari, 10 connections per instance.
- Slow query log: queries over 500 ms go to the `orders-slow` index.
"""

_EXT = """package com.acme.orders.support

@Testcontainers
@ExtendWith(SpringExtension::class)
class PostgresExtension : BeforeAllCallback {
    override fun beforeAll(context: ExtensionContext) {
        val pg = PostgreSQLContainer("postgres:15-alpine")
        pg.start()
        System.setProperty("DB_HOST", pg.host)
    }
}
"""


def build() -> UnseenSession:
    """The Kotlin session: three segments, 26 probes."""
    s = Log("kotlin")
    s.user(
        "GET /orders/{id}/summary has a p95 of 2.8 s in prod since the line-items feature "
        "shipped. orders-api is Kotlin + Spring Boot 3.2 on Gradle. Can you look at "
        "OrderSummaryService?"
    )
    s.bash(
        "./gradlew --version | head -6",
        "\n------------------------------------------------------------\nGradle 8.7\n"
        "------------------------------------------------------------\n\nKotlin:       1.9.22",
    )
    s.read(f"{_PKG}/OrderSummaryService.kt", _SERVICE)
    s.bash(
        "./gradlew test --tests '*OrderSummaryServiceTest*' -Dspring.jpa.show-sql=true "
        "| grep -c 'from product p1_0'",
        "211",
        text="Counting the product selects for the test order.",
    )
    s.say(
        "It's an N+1: `summarize` calls `products.findById` once per line item inside the "
        "map, so the fixture order with 211 items issues 211 product selects plus one for "
        "the order."
    )
    s.probe("fact", "summarize", "findById")
    s.bash(
        "psql \"$STAGING_RO\" -Atc 'select max(n) from (select count(*) n from line_items group by order_id) t'",
        "4876",
        text="How bad can a single order get on staging?",
    )
    s.probe("fact", "4876")
    s.user("FYI prod is Postgres 15 on RDS, a db.r6g.2xlarge, shared with invoicing.")
    s.probe("fact", "db.r6g.2xlarge")
    s.say(
        "Options: (1) a JOIN FETCH query on OrderRepository, (2) an @EntityGraph on the "
        "repository method, (3) Hibernate batch fetching via "
        "hibernate.default_batch_fetch_size."
    )
    s.user(
        "the third. it needs no query changes and it fixes the same pattern on the other "
        "endpoints too"
    )
    s.probe("decision", "default_batch_fetch_size", "other endpoints")
    s.read("src/main/resources/application.yml", _APP_YML)
    s.edit(
        "src/main/resources/application.yml",
        "# hibernate tuning\n",
        "    properties:\n      hibernate.default_batch_fetch_size: 100\n",
    )
    s.probe("file change", "src/main/resources/application.yml", "+2 -1")
    s.say(
        "That batches lazy loads of lineItems, but products are looked up by id in a loop, "
        "not through an association. Switching the loop to one `findAllById`."
    )
    s.edit(
        f"{_PKG}/OrderSummaryService.kt",
        "        val lines = order.lineItems.map { item ->\n"
        "            val product = products.findById(item.productId).get()",
        "        val byId = products.findAllById(order.lineItems.map { it.productId }).associateBy { it.id }\n"
        "        val lines = order.lineItems.map { item ->\n"
        '            val product = requireNotNull(byId[item.productId]) { "product ${item.productId} missing" }',
    )
    s.probe("file change", f"{_PKG}/OrderSummaryService.kt", "findAllById")
    s.user(
        "Never use !! in our Kotlin, use requireNotNull with a message. There's one left on "
        "the return line."
    )
    s.probe("preference", "requireNotNull")
    s.edit(
        f"{_PKG}/OrderSummaryService.kt",
        "        return OrderSummary(order.id!!, lines, lines.sumOf { it.totalCents })",
        '        val id = requireNotNull(order.id) { "order without id" }\n'
        "        return OrderSummary(id, lines, lines.sumOf { it.totalCents })",
    )
    s.bash(
        "./gradlew test --tests '*OrderSummaryServiceTest*'",
        "OrderSummaryServiceTest > summary issues one query per item() FAILED\n"
        "    org.opentest4j.AssertionFailedError: expected: <212> but was: <3>\n"
        "        at app//com.acme.orders.OrderSummaryServiceTest.summary issues one query per item(OrderSummaryServiceTest.kt:57)\n"
        "\n4 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.",
        1,
    )
    s.say(
        "That test was pinning the N+1 itself: it asserts 212 statements. Asserting at most 3 now."
    )
    s.edit(
        f"{_TEST}/OrderSummaryServiceTest.kt",
        "    fun `summary issues one query per item`() {",
        "    fun `summary issues a constant number of queries`() {",
    )
    s.edit(
        f"{_TEST}/OrderSummaryServiceTest.kt",
        "        assertEquals(212, statements.count())",
        "        assertTrue(statements.count() <= 3)",
    )
    s.bash(
        "./gradlew test --tests '*OrderSummaryServiceTest*'",
        "BUILD SUCCESSFUL in 14s\n4 actionable tasks: 2 executed, 2 up-to-date",
        0,
    )
    s.probe("fact", "./gradlew test --tests '*OrderSummaryServiceTest*'", "exit 0", stale="exit 1")
    s.user(
        "No Redis cache in front of the summary, by the way: prices change during flash "
        "sales and a stale total is worse than a slow one."
    )
    s.probe("decision", "Redis", "flash sales")
    s.user("TODO: the refund endpoint probably has the same N+1, check it after this one.")
    s.probe("todo", "refund endpoint")
    s.user(
        "Let's use MapStruct for the DTO mapping while we touch this, the hand mapping is noisy."
    )
    s.bash(
        "./gradlew dependencies --configuration kapt | grep mapstruct",
        "\\--- org.mapstruct:mapstruct-processor:1.5.5.Final",
        0,
    )
    s.write(
        f"{_PKG}/OrderMapper.kt",
        "package com.acme.orders\n\nimport org.mapstruct.Mapper\n\n"
        '@Mapper(componentModel = "spring")\ninterface OrderMapper {\n'
        "    fun toDto(summary: OrderSummary): OrderSummaryDto\n}\n",
    )
    s.bash("./gradlew compileKotlin", "BUILD SUCCESSFUL in 52s", 0)
    s.say("compileKotlin took 52 s with kapt on, against about 12 s before.")
    s.probe("fact", "kapt", "52 s")
    s.user("TODO: note the batch fetch size in docs/runbook.md so on-call knows about it.")
    s.bash("git add -A && git commit -qm 'orders: load summary products in one query'", "", 0)
    s.cut()

    s.user(
        "Second thing: integrationTest is red on CI about half the time. Here's the last "
        "run's log, can you see why?"
    )
    s.bash(
        "./gradlew integrationTest",
        "OrderApiIT > creates order() FAILED\n"
        "    org.springframework.jdbc.CannotGetJdbcConnectionException at DataSourceUtils.java:84\n"
        "        Caused by: org.postgresql.util.PSQLException: FATAL: sorry, too many clients already\n"
        "\n38 tests completed, 6 failed",
        1,
    )
    s.grep(
        "PostgreSQLContainer",
        [
            f'{_TEST}/support/PostgresExtension.kt:8:        val pg = PostgreSQLContainer("postgres:15-alpine")',
        ],
    )
    s.read(f"{_TEST}/support/PostgresExtension.kt", _EXT)
    s.say(
        "Every test class gets its own Spring context, and each context opens a Hikari pool "
        "of 10; with 12 IT classes cached at once that's 120 connections against the "
        "container's max_connections of 100."
    )
    s.probe("fact", "max_connections", "100")
    s.user(
        "Share one container and one context then. A base class with a singleton container; "
        "starting a container per class costs ~9 s each anyway."
    )
    s.probe("decision", "singleton container", "9 s")
    s.write(
        f"{_TEST}/support/AbstractIntegrationTest.kt",
        "package com.acme.orders.support\n\n@SpringBootTest\nabstract class AbstractIntegrationTest {\n"
        "    companion object {\n"
        '        private val pg = PostgreSQLContainer("postgres:15-alpine").apply { start() }\n\n'
        "        @JvmStatic\n        @DynamicPropertySource\n"
        "        fun props(registry: DynamicPropertyRegistry) {\n"
        '            registry.add("spring.datasource.url", pg::getJdbcUrl)\n'
        '            registry.add("spring.datasource.hikari.maximum-pool-size") { 4 }\n'
        "        }\n    }\n}\n",
    )
    s.probe("file change", f"{_TEST}/support/AbstractIntegrationTest.kt", "created")
    s.user(
        "And cap the test pool at 4 connections so even 20 cached contexts stay under the limit."
    )
    s.probe("decision", "4 connections", "under the limit")
    s.read("build.gradle.kts", _BUILD)
    s.edit(
        "build.gradle.kts",
        "tasks.test {\n    useJUnitPlatform()\n}",
        "tasks.test {\n    useJUnitPlatform()\n    maxParallelForks = 1\n}",
    )
    s.user(
        "Don't change the fork settings in build.gradle.kts, the unit tests need the "
        "parallelism. Put it back."
    )
    s.bash("git restore --source=HEAD -- build.gradle.kts", "", 0)
    s.probe("file change", "build.gradle.kts", "reverted", stale="edited")
    s.bash(
        "git rm -q src/test/kotlin/com/acme/orders/support/PostgresExtension.kt",
        "",
        0,
        text="The extension is replaced by the base class.",
    )
    s.probe("file change", f"{_TEST}/support/PostgresExtension.kt", "deleted")
    s.grep(
        "@ExtendWith\\(PostgresExtension",
        [
            f"{_TEST}/OrderApiIT.kt:14:@ExtendWith(PostgresExtension::class)",
            f"{_TEST}/RefundApiIT.kt:11:@ExtendWith(PostgresExtension::class)",
        ],
    )
    s.edit(
        f"{_TEST}/OrderApiIT.kt",
        "@ExtendWith(PostgresExtension::class)\nclass OrderApiIT {",
        "class OrderApiIT : AbstractIntegrationTest() {",
    )
    s.edit(
        f"{_TEST}/RefundApiIT.kt",
        "@ExtendWith(PostgresExtension::class)\nclass RefundApiIT {",
        "class RefundApiIT : AbstractIntegrationTest() {",
    )
    s.bash(
        "./gradlew integrationTest",
        "BUILD SUCCESSFUL in 1m 48s\n5 actionable tasks: 3 executed, 2 up-to-date",
        0,
    )
    s.probe("fact", "./gradlew integrationTest", "exit 0", stale="exit 1")
    s.say("38 integration tests pass in 1m 48s, down from 4m 10s with a container per class.")
    s.user("Upgrading to Spring Boot 3.3 is a separate PR, don't mix it in.")
    s.probe("todo", "Spring Boot 3.3")
    s.user(
        "Later we should add a Gatling scenario for the summary endpoint with a 5000-item order."
    )
    s.probe("todo", "Gatling scenario")
    s.user("I do reviews on Wednesday after standup. Please squash the fixup commits before that.")
    s.probe("preference", "Wednesday after standup")
    s.probe("preference", "squash the fixup commits")
    s.bash(
        "git add -A && git commit -qm 'test: one shared Postgres container for integration tests'",
        "",
        0,
    )
    s.cut()

    s.user(
        "About MapStruct: kapt added 40 seconds to every compile. Let's drop it and write "
        "the mapping as plain extension functions instead, kapt is not worth it."
    )
    s.probe("decision", "extension functions", "kapt", stale="MapStruct for the DTO mapping")
    s.bash(f"git rm -q {_PKG}/OrderMapper.kt", "", 0)
    s.probe("file change", f"{_PKG}/OrderMapper.kt", "deleted", stale="created")
    s.write(
        f"{_PKG}/OrderMappers.kt",
        "package com.acme.orders\n\nfun OrderSummary.toDto() = OrderSummaryDto(\n"
        "    id = id,\n    lines = lines.map { it.toDto() },\n    totalCents = totalCents,\n)\n\n"
        "fun SummaryLine.toDto() = SummaryLineDto(name, quantity, totalCents)\n",
    )
    s.probe("file change", f"{_PKG}/OrderMappers.kt", "created")
    s.edit(
        "build.gradle.kts",
        '    kotlin("kapt") version "1.9.23"\n',
        "",
    )
    s.bash(
        "./gradlew build",
        "> Task :ktlintMainSourceSetCheck FAILED\n"
        'src/main/kotlin/com/acme/orders/OrderMappers.kt:7:1 Unexpected blank line(s) before "}"\n'
        "FAILURE: Build failed with an exception.",
        1,
    )
    s.bash("./gradlew ktlintFormat", "BUILD SUCCESSFUL in 6s", 0)
    s.bash(
        "./gradlew build",
        "BUILD SUCCESSFUL in 41s\n14 actionable tasks: 9 executed, 5 up-to-date",
        0,
    )
    s.probe("fact", "./gradlew build", "exit 0", stale="exit 1")
    s.read("docs/runbook.md", _RUNBOOK)
    s.edit(
        "docs/runbook.md",
        "- Pool: Hikari, 10 connections per instance.\n",
        "- Pool: Hikari, 10 connections per instance.\n"
        "- Hibernate batch fetching: `hibernate.default_batch_fetch_size: 100` (application.yml).\n",
    )
    s.say("The runbook now mentions the batch fetch size, which closes that TODO.")
    s.probe("todo", "batch fetch size in docs/runbook.md", "done", stale="open")
    s.bash(
        "k6 run --vus 20 --duration 60s perf/summary.js | grep http_req_duration",
        "     http_req_duration..............: avg=97.31ms  min=41.2ms  med=88.07ms  max=612.4ms  p(90)=151.9ms  p(95)=184.21ms",
        0,
    )
    s.probe("fact", "184.21ms")
    s.user("Always run the k6 smoke test against staging before a deploy, not just locally.")
    s.probe("preference", "k6 smoke test")
    s.bash("git add -A && git commit -qm 'orders: mapping as extension functions, no kapt'", "", 0)
    s.bash(
        "git rebase -i --autosquash origin/main",
        "Successfully rebased and updated refs/heads/perf/summary-n-plus-one.",
        0,
    )
    s.bash(
        "git log --oneline -4",
        "9e1d2c7 orders: mapping as extension functions, no kapt\n51a0b3e test: one shared Postgres container for integration tests\n0c7f9d1 orders: load summary products in one query\n77ab2e0 line items: v2 schema",
        0,
    )
    s.user("Looks right. Push and open the PR as a draft.")
    s.bash(
        "git push -u origin perf/summary-n-plus-one && gh pr create --draft --fill",
        "https://github.com/acme/orders-api/pull/412",
        0,
    )
    s.say("Draft PR is up: https://github.com/acme/orders-api/pull/412.")
    return s.session
