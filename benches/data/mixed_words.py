"""Word lists for the generated parts of the mixed corpora (see ``mixed_corpus.py``).

Spanish, Chinese and Japanese lists are split by position (entry i feeds split i % 3 of fit,
tune, heldout), so keep common and rare words interleaved when editing them.
"""

EN_WORDS = """the of and to in is for on that with as this are be by from it at or an was not have
has which can will more all one their were if about but they we data system time user file value
error request response server client model token budget window memory history search result
query document source score order cache prefix policy admission limit ceiling reserve output
input message tool schema image estimate count report trace event session turn agent context
retrieval knowledge concept fact chat compact summary offload handle read grep store redis
postgres sqlite index shingle hash duplicate select budget fill rank stable volatile pinned
deprecated stale trust citation label audience private public eligible filter gap notice drop
usage total breakdown framing overhead protocol provider lookup deadline fallback chain capacity
quick brown fox jumps over lazy dog weather today tomorrow meeting lunch coffee project deadline
release version update deploy build test pass fail green red merge branch commit review""".split()

ES_WORDS = """el la de que y en los se del las un por con no una su para es al lo como más pero sus
le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo
nos durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo
otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo
nosotros mi mis tú te ti tu tus ellas nosotras vosotros vosotras os mío mía míos mías tuyo tuya
información configuración aplicación documentación solicitud respuesta servidor usuario archivo
contraseña búsqueda página número teléfono dirección ciudad país año mañana tarde noche reunión
niño niña señor señora compañía económico política público sistema también después según además
través aquí allí café canción corazón razón acción nación lección decisión situación presión
educación comunicación organización población producción relación administración investigación
desarrollo gobierno empresa mercado precio cliente producto servicio calidad tiempo trabajo vida
mundo casa hombre mujer día parte lugar forma caso grupo problema punto momento gente historia
pregunta palabra ejemplo resultado proceso proyecto programa cambio nivel manera idea tipo hecho
agua tierra fuego aire luz color verde azul rojo blanco negro grande pequeño nuevo viejo bueno malo
mejor peor último primero segundo tercero rápido lento fácil difícil posible importante necesario
hablar decir hacer tener poder saber querer llegar pasar deber poner parecer quedar creer llevar
dejar seguir encontrar llamar venir pensar salir volver tomar conocer vivir sentir tratar mirar
contar empezar esperar buscar existir entrar trabajar escribir perder producir ocurrir entender
pedir recibir recordar terminar permitir aparecer conseguir comenzar servir sacar necesitar
mantener resultar leer caer cambiar presentar crear abrir considerar oír acabar convertir ganar
formar traer partir morir aceptar realizar suponer comprender lograr explicar preguntar tocar
reconocer estudiar alcanzar nacer dirigir correr utilizar pagar ayudar gustar jugar escuchar""".split()

ZH_WORDS = """我们 他们 你们 这个 那个 什么 时候 因为 所以 但是 如果 已经 可以 没有 知道 现在 今天 明天
昨天 工作 学习 学生 老师 学校 中国 世界 国家 政府 经济 发展 社会 文化 历史 问题 方法 系统 数据
信息 技术 网络 电脑 手机 软件 程序 服务 用户 客户 公司 市场 产品 价格 质量 管理 研究 科学 教育
健康 医院 医生 病人 家庭 朋友 孩子 父母 生活 时间 地方 城市 北京 上海 天气 下雨 春天 夏天 秋天
冬天 早上 晚上 吃饭 喝茶 咖啡 水果 苹果 米饭 面条 东西 事情 意思 喜欢 希望 觉得 认为 需要 应该
开始 结束 继续 发现 重要 简单 复杂 容易 困难 快乐 高兴 美丽 安全 危险 方便 自由 和平 环境 保护
能源 交通 汽车 飞机 火车 旅行 机场 车站 银行 商店 超市 饭店 宾馆 房间 窗户 桌子 椅子 电视 电影
音乐 艺术 体育 运动 比赛 足球 篮球 游泳 跑步 身体 眼睛 耳朵 头发 衣服 颜色 红色 蓝色 绿色 白色
黑色 大小 多少 上下 左右 前后 里面 外面 旁边 中间 附近 一起 一直 一定 一般 一样 非常 特别 比较
越来越 模型 上下文 窗口 预算 检索 知识 记忆 对话 历史记录 令牌 估计 缓存 前缀 策略 查询 结果
文档 来源 分数 排序 重复 删除 保留 摘要 会议 报告 项目 版本 更新 发布 测试 成功 失败 错误 请求
响应 服务器 客户端 接口 参数 配置 文件 目录 路径 数据库 索引 搜索 引擎 人工智能 机器学习 深度学习
自然语言 处理 计算机 算法 结构 函数 变量 对象 类型 属性 方法论 的 了 是 在 和 有 也 都 就 很 还
不 这 那 说 要 会 能 到 去 来 对 从 把 被 让 给 跟 向 为""".split()

JA_WORDS = """私 あなた 彼 彼女 これ それ あれ どれ ここ そこ あそこ 今日 明日 昨日 時間 会社 仕事 学校
学生 先生 友達 家族 日本 東京 大阪 世界 国 問題 方法 情報 技術 システム データ サーバー ユーザー
ファイル メッセージ モデル トークン 予算 検索 結果 文書 履歴 記憶 会話 要約 設定 確認 変更 更新
削除 追加 保存 送信 受信 接続 エラー 成功 失敗 テスト リリース バージョン プロジェクト 会議 報告
は が を に で の と も へ から まで より や か ね よ です ます でした ました ません ている ていた
します しました される された できる できます ある あります いる います なる なります 行く 来る
見る 聞く 話す 読む 書く 食べる 飲む 買う 売る 使う 作る 考える 思う 分かる 知る 待つ 始まる
終わる 続く 開く 閉じる 入る 出る 帰る 休む 働く 勉強 旅行 料理 天気 雨 雪 春 夏 秋 冬 朝 昼 夜
新しい 古い 大きい 小さい 高い 安い 早い 遅い 難しい 易しい 楽しい 美しい 重要 簡単 便利 安全
必要 大切 特別 普通 本当 全部 少し たくさん いつも 時々 もう まだ すぐ ゆっくり とても ちょっと
コーヒー お茶 ご飯 ラーメン 寿司 電車 駅 空港 銀行 病院 図書館 公園 部屋 窓 机 椅子 テレビ 映画
音楽 写真 電話 番号 住所 名前 年 月 日 週 円 人 事 物 所 前 後 上 下 中 外 右 左 東 西 南 北
キャッシュ プレフィックス コンテキスト ウィンドウ ポリシー クエリ インデックス エンジン 管理者""".split()

FIRST_NAMES = """Ana José María Luis Carmen Jürgen Zoë François Søren Ólafur Wei Yuki Hiroshi Aiko
Priya Arjun Olga Dmitri Fatima Omar Chloé Noël Björn Åsa Łukasz Małgorzata Tomás Inés Raúl
Sofía Mateo Valentina Liam Emma Noah Olivia Kenji Sakura Mei Jun Hana Minh Linh""".split()

LAST_NAMES = """García Martínez López Müller Schmidt Dubois Lefèvre Nørgaard Kowalski Nowak Ivanov
Petrova Tanaka Suzuki Yamamoto Wang Li Zhang Chen Nguyen Kim Park Singh Patel Smith Johnson
O'Brien MacDonald D'Angelo Ångström Peña Núñez""".split()

JSON_KEYS = """id name title description status type created_at updated_at user_id owner email phone
address city country zip amount currency price quantity total tags items metadata score rank
source url path size checksum version parent_id children enabled count page per_page next cursor
latitude longitude timestamp duration error message code details lang region sku order_id""".split()

EMOJI = [
    "😀",
    "😂",
    "🤣",
    "😍",
    "😭",
    "😅",
    "🙏",
    "👍",
    "👎",
    "👏",
    "🔥",
    "✨",
    "🎉",
    "❤️",
    "💯",
    "🚀",
    "✅",
    "❌",
    "⚠️",
    "📦",
    "📈",
    "📉",
    "💡",
    "🤔",
    "🙈",
    "😎",
    "🥳",
    "😴",
    "🤖",
    "👀",
    "🌍",
    "🍕",
    "☕",
    "🍺",
    "🎂",
    "🐍",
    "🦀",
    "🐛",
    "🔧",
    "🔒",
    "🔑",
    "📅",
    "⏰",
    "📝",
    "📎",
    "💬",
    "🧠",
    "🫠",
    "👍🏽",
    "👋🏻",
    "🙌🏿",
    "💪🏾",
    "👩‍💻",
    "👨‍👩‍👧‍👦",
    "🧑‍🚀",
    "🏳️‍🌈",
    "🇪🇸",
    "🇯🇵",
    "🇨🇳",
    "🇺🇸",
    "🇧🇷",
    "1️⃣",
    "#️⃣",
    "©️",
    "™️",
    "↩️",
    "⭐",
    "🌟",
    "💥",
    "🎯",
    "🧪",
    "🛠️",
    "📊",
    "🗂️",
    "🔍",
    "🧵",
    "🪄",
    "🫶",
    "🥲",
]
