"""Sentences written for the judge corpus (not taken from any fit corpus): what customers and
colleagues write in support tickets and chats, with slots for the ids, amounts and paths that
real tickets carry. ``{order}``, ``{amount}``, ``{date}``, ``{product}``, ``{err}``, ``{path}``
and ``{name}`` are filled by ``tickets.fill_slots``."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

TICKETS: dict[str, list[str]] = {
    "es": [
        "Hola, mi pedido {order} todavía no ha llegado y el seguimiento dice «entregado» desde el {date}.",
        "¿Podrían revisar por qué se me cobró dos veces {amount}? Adjunto el extracto del banco.",
        "La aplicación se cierra sola cuando intento exportar el informe a PDF; el error es {err}.",
        "Buenos días: necesito cambiar la dirección de facturación de la cuenta de {name} antes del cierre del mes.",
        "El producto «{product}» llegó con la caja dañada y falta el cargador. ¿Cómo solicito la devolución?",
        "Después de actualizar a la versión nueva, la sincronización tarda más de diez minutos y a veces falla.",
        "No puedo iniciar sesión: el código de verificación llega por SMS pero la página dice que caducó.",
        "¡Gracias por la respuesta tan rápida! Sin embargo, el problema continúa en el archivo {path}.",
        "Quisiera saber si el plan anual incluye soporte técnico en español y cuántos usuarios admite.",
        "El reembolso de {amount} aparece como pendiente desde hace tres semanas; ¿cuándo se acreditará?",
        "Les escribo de nuevo porque nadie respondió a mi consulta anterior sobre el pedido {order}.",
        "Según la documentación, la opción de exportación debería estar en «Configuración › Avanzado», pero no aparece.",
    ],
    "zh": [
        "您好，我的订单 {order} 显示已发货，但物流信息从 {date} 起就没有更新了。",
        "请问为什么我的账户被重复扣款 {amount}？附件是银行流水截图。",
        "升级到最新版本后，导出报表时程序直接闪退，错误代码是 {err}。",
        "收到的「{product}」包装破损，而且缺少充电器，请问怎么申请退换货？",
        "我们公司有二十个人需要使用，年度套餐是否支持统一开票？",
        "登录时验证码一直提示已过期，换了三个浏览器都不行，麻烦尽快处理。",
        "感谢你们的及时回复！不过问题依然存在，日志文件在 {path}。",
        "退款 {amount} 已经三个星期了还在处理中，什么时候能到账？",
        "能否把发票抬头改成“{name}有限公司”，税号稍后补充。",
        "同步功能每次都要十几分钟，有时候还会失败，网络是正常的。",
        "客服电话一直占线，只好在这里留言，希望今天能有人联系我。",
        "按照文档的说明在“设置 > 高级”里找不到导出选项，是不是版本不对？",
    ],
    "ja": [
        "お世話になっております。注文番号 {order} の商品がまだ届いておりません。{date} に発送済みと表示されています。",
        "同じ請求が二回（{amount}）引き落とされているようです。ご確認をお願いいたします。",
        "最新版にアップデートしてから、レポートを PDF に書き出すとアプリが強制終了します。エラーは {err} です。",
        "届いた「{product}」の箱が潰れていて、充電ケーブルが入っていませんでした。交換は可能でしょうか。",
        "ログイン時に認証コードを入力しても「有効期限切れ」と表示されてしまいます。",
        "迅速なご対応ありがとうございます。ただ、{path} のファイルでは同じ現象が続いています。",
        "年間プランは何名まで利用できますか？また、請求書払いには対応していますか。",
        "返金（{amount}）の手続きが三週間たっても「処理中」のままです。",
        "請求書の宛名を「株式会社{name}」に変更していただけますでしょうか。",
        "同期に十分以上かかり、ときどき失敗します。ネットワークは問題ありません。",
        "マニュアルには「設定 → 詳細」にエクスポートがあると書いてありますが、見当たりません。",
        "取り急ぎご報告まで。詳細は添付のスクリーンショットをご覧ください。",
    ],
    "ko": [
        "안녕하세요, 주문번호 {order} 상품이 {date}에 발송되었다고 나오는데 아직 받지 못했습니다.",
        "같은 금액 {amount}이 두 번 결제되었습니다. 확인 부탁드립니다.",
        "업데이트 후 보고서를 내보내면 앱이 종료됩니다. 오류 코드는 {err}입니다.",
        "받은 「{product}」 상자가 찢어져 있었고 충전기가 빠져 있었어요.",
        "빠른 답변 감사합니다! 하지만 {path} 파일에서는 여전히 같은 문제가 생깁니다.",
    ],
    "ru": [
        "Здравствуйте! Заказ {order} до сих пор не доставлен, хотя статус «доставлено» висит с {date}.",
        "С моей карты дважды списали {amount}. Прошу проверить и вернуть лишний платёж.",
        "После обновления приложение закрывается при экспорте отчёта, ошибка {err}.",
        "Коробка с «{product}» пришла помятой, зарядного устройства внутри нет.",
        "Спасибо за быстрый ответ, но проблема осталась: смотрите журнал {path}.",
        "Подскажите, пожалуйста, сколько пользователей включено в годовой тариф?",
    ],
    "uk": [
        "Доброго дня! Замовлення {order} ще не надійшло, хоча відправлено {date}.",
        "Після оновлення застосунок зависає під час синхронізації, помилка {err}.",
    ],
    "ar": [
        "مرحباً، لم يصلني الطلب رقم {order} حتى الآن رغم أن حالته «تم التسليم» منذ {date}.",
        "تم خصم مبلغ {amount} مرتين من بطاقتي، أرجو المراجعة وإعادة المبلغ.",
        "بعد التحديث يتوقف التطبيق عند تصدير التقرير، ويظهر الخطأ {err}.",
        "وصل المنتج «{product}» والعلبة تالفة والشاحن غير موجود.",
        "شكراً على الرد السريع، لكن المشكلة ما زالت قائمة في الملف {path}.",
    ],
    "he": [
        "שלום, ההזמנה {order} עדיין לא הגיעה, למרות שהסטטוס הוא „נמסר” מאז {date}.",
        "חויבתי פעמיים בסך {amount}, אשמח לבדיקה ולהחזר.",
        "אחרי העדכון האפליקציה נסגרת בזמן ייצוא הדוח, קוד השגיאה {err}.",
        "תודה על המענה המהיר, אבל הבעיה עדיין קיימת בקובץ {path}.",
    ],
    "hi": [
        "नमस्ते, मेरा ऑर्डर {order} अभी तक नहीं पहुँचा है, जबकि {date} से स्थिति “डिलीवर” दिख रही है।",
        "मेरे कार्ड से {amount} दो बार कट गए हैं, कृपया जाँच करें।",
        "अपडेट के बाद रिपोर्ट एक्सपोर्ट करते ही ऐप बंद हो जाता है, त्रुटि {err} आती है।",
        "जल्दी जवाब देने के लिए धन्यवाद, लेकिन {path} फ़ाइल में समस्या अब भी है।",
    ],
    "de": [
        "Guten Tag, meine Bestellung {order} ist noch nicht angekommen, obwohl sie seit dem {date} als „zugestellt“ gilt.",
        "Mir wurden {amount} doppelt abgebucht. Bitte prüfen Sie das und erstatten Sie den Betrag.",
        "Seit dem Update stürzt die Anwendung beim PDF-Export ab (Fehler {err}).",
        "Vielen Dank für die schnelle Rückmeldung – das Problem besteht aber weiterhin in {path}.",
    ],
    "fr": [
        "Bonjour, ma commande {order} n’est toujours pas arrivée alors qu’elle est « livrée » depuis le {date}.",
        "J’ai été débité deux fois de {amount} ; pourriez-vous vérifier et me rembourser ?",
        "Depuis la mise à jour, l’application se ferme pendant l’export du rapport (erreur {err}).",
        "Merci pour votre réponse rapide, mais le problème persiste dans le fichier {path}.",
    ],
    "pt": [
        "Olá, o pedido {order} ainda não chegou, embora conste como “entregue” desde {date}.",
        "Fui cobrado duas vezes no valor de {amount}. Podem verificar, por favor?",
        "Depois da atualização o aplicativo fecha ao exportar o relatório; o erro é {err}.",
    ],
    "tr": [
        "Merhaba, {order} numaralı siparişim hâlâ ulaşmadı; {date} tarihinden beri “teslim edildi” görünüyor.",
        "Kartımdan {amount} iki kez çekildi, lütfen kontrol eder misiniz?",
        "Güncellemeden sonra rapor dışa aktarılırken uygulama kapanıyor, hata kodu {err}.",
    ],
    "vi": [
        "Xin chào, đơn hàng {order} của tôi vẫn chưa đến dù trạng thái là “đã giao” từ {date}.",
        "Tài khoản của tôi bị trừ tiền hai lần, mỗi lần {amount}. Mong được kiểm tra giúp.",
        "Sau khi cập nhật, ứng dụng bị thoát khi xuất báo cáo, mã lỗi {err}.",
    ],
    "th": [
        "สวัสดีค่ะ คำสั่งซื้อ {order} ยังไม่ได้รับสินค้า แต่สถานะขึ้นว่าจัดส่งแล้วตั้งแต่ {date}",
        "บัตรของฉันถูกตัดเงิน {amount} สองครั้ง รบกวนช่วยตรวจสอบด้วยค่ะ",
        "หลังจากอัปเดต แอปปิดเองทุกครั้งที่ส่งออกรายงาน ข้อผิดพลาดคือ {err}",
    ],
    "pl": [
        "Dzień dobry, zamówienie {order} wciąż nie dotarło, choć od {date} ma status „dostarczone”.",
        "Z mojej karty dwukrotnie pobrano {amount}. Proszę o sprawdzenie i zwrot.",
    ],
    "el": [
        "Καλησπέρα, η παραγγελία {order} δεν έχει φτάσει ακόμη, αν και εμφανίζεται «παραδόθηκε» από {date}.",
        "Χρεώθηκα δύο φορές {amount}. Παρακαλώ ελέγξτε το.",
    ],
}

# Support-desk replies and internal notes that agents paste into tickets, in English.
REPLIES = [
    "Thanks for reaching out! I've escalated order {order} to our logistics team.",
    "I can confirm the duplicate charge of {amount}; the refund was issued on {date}.",
    "Could you send us the log file ({path}) and the exact error ({err})?",
    "Internal note: customer {name} is on the legacy plan, do not offer the annual discount.",
    "Closing this ticket as resolved. Reply to reopen within 14 days.",
]

PRODUCTS = [
    "Aurora X2",
    'Nimbus 14"',
    "Kestrel Pro",
    "Blue Fjord kettle",
    "Sol 3000 Wh",
    "Mochi-Cam 4K",
    "Orca USB-C hub",
]
NAMES = [
    "García López",
    "王小明",
    "佐藤 健",
    "Иван Петров",
    "محمد العلي",
    "נועה כהן",
    "Zoë Ørsted",
    "Nguyễn Thị Hoa",
    "Łukasz Wójcik",
    "Παπαδόπουλος",
    "김민준",
    "Ömer Yılmaz",
]

# Chat lines with emoji: the lines carry the emoji, the builder adds more at random.
CHAT = [
    "omg it finally deployed 🎉🎉",
    "lol no way 😂😂😂",
    "can you check the staging logs? 🙏",
    "brb coffee ☕️",
    "the build is red again 🔴 who pushed to main?? 😤",
    "shipping it 🚢 👍🏽",
    "happy birthday!!! 🥳🎂🎁",
    "¿alguien sabe por qué falla el test? 🤔",
    "今日のデプロイ、無事終わりました🙌",
    "这个需求我明天再看吧😴",
    "спасибо огромное 🙏❤️",
    "👀",
    "💯💯",
    "ok 👌",
    "meeting moved to 3pm 📅 ⏰",
    "🇯🇵 → 🇺🇸 flight delayed ✈️😩",
    "family dinner 👨‍👩‍👧‍👦🍝",
    "she said yes!! 💍👩‍❤️‍👨",
    "🔥🔥🔥 this PR is 🔥",
    "merci beaucoup 😊🌸",
]

# Chinese developer notes around command lines (the CLI parts are filled by the builder).
ZH_CLI = [
    "先执行 {cmd} 看看输出，如果报错就把日志贴上来。",
    "我本地用 {cmd} 复现了，问题出在参数 {flag} 没有生效。",
    "部署脚本里要加上 {flag}，否则会默认连到生产环境。",
    "运行 {cmd} 之后提示权限不足，需要加 sudo 吗？",
    "建议把 {flag} 改成环境变量，不然每次都要手动输入。",
    "升级依赖请用 {cmd}，不要直接改 lock 文件。",
    "测试环境的配置在 {path}，记得不要提交密钥。",
]
JA_CLI = [
    "まず {cmd} を実行して、出力を確認してください。",
    "{flag} を付けないと本番環境に接続されるので注意してください。",
    "ローカルでは {cmd} で再現できました。",
]
