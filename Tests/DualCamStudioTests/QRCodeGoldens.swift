@testable import DualCamQR

/// Symbols made by an independent encoder (Python `qrcode` 8.2: byte mode, the level and
/// version shown, and its own mask choice unless a name says the mask was forced), and
/// read back with zxing-cpp when they were made. Rows are hex, most significant bit on
/// the left, padded with zeros to whole digits.
struct QRGolden {
    let text: String
    let level: QRCode.ErrorCorrection
    let version: Int
    let mask: Int
    let rows: String

    /// Row-major modules, `true` is dark.
    var modules: [[Bool]] {
        let size = 17 + 4 * version
        return rows.split(separator: "\n").map { row in
            let bits = row.flatMap { digit -> [Bool] in
                let value = Int(String(digit), radix: 16)!
                return (0..<4).map { value >> (3 - $0) & 1 == 1 }
            }
            return Array(bits.prefix(size))
        }
    }
}

enum QRGoldens {
    static let short = QRGolden(
        text: "http://10.0.0.2:8080/",
        level: .medium, version: 2, mask: 0,
        rows: """
            fe79bf8
            82e5208
            ba4aae8
            ba78ae8
            ba95ae8
            8245208
            feaabf8
            005c000
            aa27090
            8d0e708
            52a2cb8
            ed3c710
            674e358
            6db8348
            829cbb8
            690ed50
            9b73fc0
            00d18f8
            fe25a98
            82518c0
            baa8f98
            ba3d4a0
            bafa8c8
            820ead0
            fef2918
            """)

    static let url40 = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d",
        level: .medium, version: 3, mask: 0,
        rows: """
            fe19dbf8
            82a5d208
            ba4aaae8
            ba731ae8
            baab1ae8
            8239d208
            feaaabf8
            003f5000
            aa6f7090
            28fe0348
            6a42cfb8
            754ee750
            971cf358
            1c4ca368
            52704818
            21e474d0
            f2624218
            19886728
            9f9c0c58
            7191c750
            9a094f80
            00c408b8
            fe42dad8
            8226f8d0
            bab3cfc0
            ba4a9cd8
            ba9074e8
            8223fc50
            fe94ce58
            """)

    static let url120 = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d5e7b2a4968c0f1e3d5b7a9c2e4f60718293a4b5c6d7e8f90123456783f9a0c1d5e7b2a4968c0f1e3",
        level: .medium, version: 7, mask: 2,
        rows: """
            fe1d405a4bf8
            8215a8a0d208
            bab284bbd2e8
            baeaaac01ae8
            bac7df973ae8
            82e048f94208
            feaaaaaaabf8
            00b318aae800
            be02dfb713e0
            31ebb813c9d8
            db3707f433f0
            bc3fc48f99a0
            1b807af44448
            08c78016d8b8
            e750ffe03f40
            293b44cdcdb0
            7a73f2101250
            7d54020ac968
            a6de2bf53e10
            e51355cacdb0
            dfbf3fb73fc8
            78f4489b58f8
            6ae2bae52aa0
            28cfe8afc8e8
            df832f927fd8
            bcfdfa9f4a28
            7f2ce570e050
            1d3daa8a9fe0
            0ac268910e88
            793f16438f38
            6a1bef356100
            75d028dbfb60
            8b2e8d664090
            4966f2c35978
            0a9265202540
            790bc0afdbb0
            9a782f920fc0
            00cd38c218e8
            fe129abd7ab0
            82cbe88bb8f0
            bacf0f907fd0
            baaca19ac4f8
            bae2d7ec3b10
            82549b5b9820
            fe9cb2a00650
            """)

    static let url200 = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d5e7b2a4968c0f1e3d5b7a9c2e4f60718293a4b5c6d7e8f90123456783f9a0c1d5e7b2a4968c0f1e3d5b7a9c2e4f60718293a4b5c6d7e8f90123456783f9a0c1d5e7b2a4968c0f1e3d5b7a9c2e4f60718",
        level: .medium, version: 10, mask: 2,
        rows: """
            fe3e479ac8a73f8
            821fb1f5bf55208
            baf4205952af2e8
            bae5b8066b612e8
            baa9efbf40212e8
            82fd25223e4e208
            feaaaaaaaaaabf8
            008179e3d1fe800
            be298d7e4e613e0
            2d6dd083d064968
            07b162dd3612710
            99d97786b5fcab8
            e78082f12c65550
            19dedd6200689e8
            7b1f3e343f86770
            9de8f779d2c9aa0
            a34c11024913348
            5891d282dd34928
            aae5fcdc2b4b210
            39e2bd9cf1eeab8
            87e93f610a71550
            346cf4cd5c7c908
            6227edd32b83f30
            1c2420dc53b88e8
            afa84d27a827740
            c49d8ad2c0ec928
            7fb848bfbe13f90
            18b07de380ad8a0
            3a967e2a2b56ac8
            78ca81e2cd3c898
            cfe275ff2a47fe0
            a411608594a9e30
            1ee0818a4f16cd0
            f4644a958424f60
            6e917dfe7b531b8
            15c8128194bfe60
            53e17c122b64480
            a4cb07ae49ac338
            1a6d159eaf12800
            cc039ea884bd770
            c31b220b7d02e90
            4d05f195c030f78
            63451b7eaf57020
            5826298000bdb78
            5b619a4a59404c0
            b5b3d7b64931238
            a71e0042be47900
            f96885a7d5fb670
            02bea13e0c06f90
            00bcb0e348748a8
            fe33492b2712ab0
            82f5eca2a1fc8b0
            badcb4bf3a41fd0
            bafdbb6a08f14e0
            bad58e14fe06900
            82648367d2cd820
            fef9af100d12f50
            """)

    static let url40L = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d",
        level: .low, version: 3, mask: 0,
        rows: """
            fe49dbf8
            823dd208
            baeaaae8
            ba731ae8
            ba231ae8
            8241d208
            feaaabf8
            00ef5000
            efb77620
            40360348
            bbc2cfb8
            b596e750
            1a0cf358
            389ca368
            b6184818
            60cc74d0
            aaf24218
            6c106728
            a3c40c58
            7031c750
            ab894f80
            009c08b8
            fefadad8
            828ef8d0
            baf3cfc0
            ba529cd8
            ba8474e8
            82d1fc50
            fee8ce58
            """)

    static let url40Q = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d",
        level: .quartile, version: 4, mask: 4,
        rows: """
            fe404bbf8
            8250d8a08
            bab506ae8
            ba4e79ae8
            bafe3dae8
            82f730208
            feaaaabf8
            005947000
            4acd745a0
            75bc09860
            4f88c3e40
            c8a7f5218
            97602cec0
            e1a557140
            b339718b0
            28de7f480
            7785256d0
            c921eb870
            3b4567640
            ad0e84c00
            d7b8376d8
            b00579970
            1e7e8f250
            34da24d00
            ff7794f90
            00a6c88a0
            fe1584ac0
            8220378c0
            bac478fd0
            ba50b46d0
            ba25b17a0
            829f5f900
            fe4065888
            """)

    static let url40H = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d",
        level: .high, version: 5, mask: 1,
        rows: """
            fe55430bf8
            82da094208
            baa9cbcae8
            bad6aaeae8
            bab27daae8
            82d821ea08
            feaaaaabf8
            0011b15800
            27c71e4df0
            29b5930358
            5a7c727fd8
            bd4b5c2800
            fbbcdbbe18
            18cf533e38
            87a98c7078
            c1ecc69bc8
            2bbd42a700
            2432993608
            6beed5d9a8
            c483d73e80
            4ad7ee0a10
            b5139c1728
            b3f4a777e8
            7dc7503f18
            5b82296e18
            555e407e38
            eab92774b8
            0579e62240
            db98753fd0
            00a18168c8
            fe889b2af8
            82851a98c8
            ba7bf0bf98
            ba0130e0c8
            babb768dd8
            8277758800
            fe261c3b88
            """)

    static let url40Mask3 = QRGolden(
        text: "http://192.168.1.20:8080/?token=3f9a0c1d",
        level: .medium, version: 3, mask: 3,
        rows: """
            fefa53f8
            82e2ca08
            ba4492e8
            baef6ae8
            ba13fae8
            82481208
            feaaabf8
            00f84800
            b7614a58
            ede27288
            e67a2c30
            693f2048
            afff7d60
            6d8bbf18
            b3fe70f8
            e4f80510
            7e5aa190
            05f9a030
            a77f8260
            0056db20
            7b877fe0
            00d878f8
            fefa3ad0
            82d738c8
            ba504ff8
            ba8d80a8
            ba9e4c08
            823f8d90
            feac2dd0
            """)
}
